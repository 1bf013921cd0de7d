"""The baselines the Top-k L2D paper compares with, one module each."""
