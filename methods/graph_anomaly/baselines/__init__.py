"""GADBench baselines and label-free scores, one module per detector."""
