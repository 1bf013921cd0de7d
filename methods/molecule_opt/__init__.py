"""Molecule optimisation with reasoning policies (DePO/RePO, arXiv 2603.05900) against SFT, GRPO and
non-learning references, scored with RDKit (and ADMET-AI) on MOSES molecules; registrations in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
