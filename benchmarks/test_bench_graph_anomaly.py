"""Graph anomaly detection on the real Reddit graph (10,984 nodes), one torch thread: GCN and APF trials,
the MRQ subgraph selection, and the outlier generator."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import data_file


def _reddit() -> Path:
    """The Reddit file under the data root (Tolokers sits beside it); skips when absent."""
    return data_file("graphs/reddit.npz")


def _one_trial_on_reddit(benchmark, make_detector) -> None:  # noqa: ANN001
    """Benchmark one seed of `make_detector()` on Reddit's semi-supervised split; test AUROC into extra_info."""
    import torch

    from harness.context import RunContext
    from methods.graph_anomaly.data import load_npz
    from methods.graph_anomaly.metrics import auroc
    from methods.graph_anomaly.task import NodeScoring

    torch.set_num_threads(1)
    instance = NodeScoring().instance(load_npz(_reddit()), {"kind": "semi"}, seed=0)
    contexts = []

    def train() -> np.ndarray:
        torch.manual_seed(0)
        contexts.append(RunContext(seed=0, device="cpu", threads=1))
        return make_detector().run(instance.inputs, contexts[-1])

    scores = benchmark.pedantic(train, rounds=2, iterations=1)
    truth = instance.truth
    benchmark.extra_info["test_auroc"] = round(auroc(truth.test_y, scores[truth.test_idx]), 2)
    for name, measurement in contexts[-1].measurements.items():
        if name.endswith("epoch_seconds"):
            benchmark.extra_info[name] = round(measurement.value, 4)


def test_gcn_one_seed_on_reddit(benchmark):
    from methods.graph_anomaly.baselines.gcn import GCNDetector

    _one_trial_on_reddit(benchmark, GCNDetector)


def test_apf_one_seed_on_reddit(benchmark):
    """APF's pre-training and fine-tuning, one trial (the issue's budget: 5 minutes on 2 cores)."""
    from methods.graph_anomaly.apf import APFDetector

    _one_trial_on_reddit(benchmark, APFDetector)


def test_injected_sbm_generator(benchmark):
    from methods.graph_anomaly.data import injected_sbm

    benchmark(injected_sbm)


@pytest.mark.parametrize("name", ["reddit", "tolokers"])
def test_mrq_subgraph_on_real_graphs(benchmark, name):
    """The vectorised RQ-maximising neighbour selection (APF step 2) on the real graphs."""
    from methods.graph_anomaly.baselines.rayleigh import mrq_subgraph

    archive = np.load(_reddit().with_name(f"{name}.npz"))
    subgraph = benchmark(mrq_subgraph, archive["x"], archive["edge_index"])
    benchmark.extra_info["mean_neighbours_kept"] = round(float(subgraph.neighbours_kept.mean()), 2)
