"""Brain-inspired modular language models in miniature (MiCRo, arXiv 2506.13331): a generated four-domain
corpus (logic, social, world, language), a tiny dense Llama base, MoB and MiCRo (block cloning into four
experts and the three-stage curriculum), per-domain accuracy, routing specialisation, the expert-ablation
matrix and steering; users' GSM8K/BBH-style generations scored by the same checkers. Its registrations are
listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
