"""The reference solvers: one module per solver."""
