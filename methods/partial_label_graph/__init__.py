"""Partial-label graph classification (PRISM, ICLR 2026) on TU benchmarks;
its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
