"""Reference planners with known answers, one per module: they make the metrics testable."""
