"""Protein sequence design alignment (ProtAlign / MoMPNN, arXiv 2603.06748): multi-objective DPO of the real
ProteinMPNN weights against its sampling, SolubleMPNN and inference-time bias; registrations in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
