"""Shared by the graph-anomaly tests: one torch thread, a planted graph, and a way to run a detector."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest
import torch

from harness import Method, RunContext
from methods.graph_anomaly.data import injected_sbm
from methods.graph_anomaly.graph import Graph
from methods.graph_anomaly.task import NodeScoring, NodeScoringInputs


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Scatter/spmm on this machine's 2 cores is far slower with 2 threads than with 1."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def planted() -> Graph:
    """PyGOD-style injected SBM whose anomalies also get their features shifted by +0.5.

    Injected outliers alone carry no feature-only signal (a contextual outlier copies a
    normal node's features), so the shift is what lets the graph-free baselines beat random.
    """
    graph = injected_sbm(num_nodes=600, seed=0)
    x = graph.x.copy()
    x[graph.y == 1] += 0.5
    return dataclasses.replace(graph, x=x)


def run_detector(detector: Method, inputs: NodeScoringInputs, seed: int = 0) -> tuple[np.ndarray, RunContext]:
    """Scores and context of one run; the harness seeds torch before `run`, so tests do it here."""
    torch.manual_seed(seed)
    ctx = RunContext(seed=seed, device="cpu", threads=1)
    return detector.run(inputs, ctx), ctx


def assert_ignores_hidden_test_labels(make: Callable[[], Method], graph: Graph) -> None:
    """Scores are bit-identical when the test nodes' labels are permuted: inputs carry train/val labels only."""
    instance = NodeScoring().instance(graph, {}, seed=0)
    test = instance.truth.test_idx
    relabelled = graph.y.copy()
    relabelled[test] = np.random.default_rng(1).permutation(relabelled[test])
    assert not np.array_equal(relabelled, graph.y)
    inputs = instance.inputs
    other = dataclasses.replace(inputs, train_y=relabelled[inputs.train_idx], val_y=relabelled[inputs.val_idx])
    np.testing.assert_array_equal(run_detector(make(), inputs)[0], run_detector(make(), other)[0])
