"""Partial-label losses and graph self-supervised baselines on the family's GIN encoder."""
