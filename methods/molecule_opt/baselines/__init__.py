"""The non-learning references: one module per method."""
