"""Zeroth-order fine-tuning of quantized LLMs (QZO, ICLR 2026) against MeZO, SGD/AdamW fine-tuning, LoRA and
QLoRA; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
