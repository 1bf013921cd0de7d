"""ProxyAttn's baselines: one block-sparse estimator per module, each citing its reference code."""
