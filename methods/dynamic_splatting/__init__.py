"""Uncertainty-aware dynamic Gaussian splatting (USplat4D, arXiv 2510.12768) in miniature: a pure-PyTorch
splatter, generated dynamic scenes with known motion, uniform against uncertainty-weighted motion optimisation,
and masked view metrics for your own renders; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
