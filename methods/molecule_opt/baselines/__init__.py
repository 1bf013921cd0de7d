"""The non-learning references and the recorded-outputs replay: one module per method."""
