"""The baselines the issue names: the dense model fine-tuned on the same data, and MoB (the cloned mixture of
blocks trained end to end without the curriculum)."""
