"""The baselines the paper compares with, one module each, named after it."""
