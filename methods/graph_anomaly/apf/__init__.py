"""APF (Liu et al., ICLR 2026): dual Chebyshev filters, MRQ-guided DGI pre-training, gated fine-tuning."""
from methods.graph_anomaly.apf.method import APFDetector

__all__ = ["APFDetector"]
