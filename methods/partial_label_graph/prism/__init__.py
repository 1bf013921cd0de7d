"""PRISM (ICLR 2026): spatial and spectral views, relational inference, candidate-projected propagation."""
from methods.partial_label_graph.prism.method import PRISM

__all__ = ["PRISM"]
