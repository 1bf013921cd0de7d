"""Transformers learning pseudorandom generators (Tao & Barkeshli, arXiv 2510.26792) in miniature: LCG, truncated
LCG and the PCG output permutations over m = 2^k, a small Llama decoder trained from scratch to predict unseen
(a, c) pairs' sequences in context, chance / n-gram / classical-solver references, and the in-context length,
steps-to-threshold and embedding-clustering measurements; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
