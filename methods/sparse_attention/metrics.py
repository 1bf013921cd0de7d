"""The fidelity figures as registered metrics: pure functions of one `FidelityEvaluation` (`fidelity.py`)."""
from __future__ import annotations

from operator import methodcaller
from typing import TYPE_CHECKING

from harness import Metric

if TYPE_CHECKING:  # fidelity imports torch: planning a suite reads these metrics' versions without it
    from methods.sparse_attention.fidelity import FidelityEvaluation


def _sparsity(evaluation: FidelityEvaluation) -> float:
    return 1.0 - evaluation.density()


DENSITY = Metric("density", methodcaller("density"), higher_is_better=False,
                 description="fraction of the causal (query, key) pairs the mask computes")
BLOCK_DENSITY = Metric("block_density", methodcaller("block_density"), higher_is_better=False,
                       description="fraction of the causal key blocks the mask keeps (a diagonal block counts whole)")
SPARSITY = Metric("sparsity", _sparsity, higher_is_better=True,
                  description="1 - density, the column ProxyAttn's RULER table reports")
RECALL_MEAN = Metric("recall_mean", methodcaller("recall_mean"), higher_is_better=True,
                     description="exact attention mass inside the selected blocks, mean over heads and query rows")
RECALL_P1 = Metric("recall_p1", lambda e: e.recall_quantile(0.01), higher_is_better=True,
                   description="1st percentile over heads and query rows of the captured attention mass")
RECALL_MIN = Metric("recall_min", lambda e: e.recall_quantile(0.0), higher_is_better=True,
                    description="the worst (head, query row)'s captured attention mass")
OUTPUT_REL_ERROR = Metric("output_rel_error", methodcaller("output_rel_error"), higher_is_better=False,
                          description="||O_sparse - O_dense||_F / ||O_dense||_F, mean over cases")
