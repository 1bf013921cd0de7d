"""Initialising small models from a larger one (MASA, ICLR 2026) in miniature: a tiny Llama source pre-trained
on a generated multi-domain corpus, gene matrices learned from its FFNs with output and spectral alignment and
reshaped by SVD into smaller students, against random initialisation, magnitude and structured pruning, weight
selection and knowledge distillation; steps to a loss threshold, accuracy and perplexity at a fixed budget,
learning-curve AUC, spectral distance and CKA. Its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
