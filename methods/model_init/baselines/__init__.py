"""The baselines: random initialisation, magnitude and structured pruning of the source, weight selection and
knowledge distillation."""
