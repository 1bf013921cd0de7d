"""Partial-label graph classification on the real ENZYMES set (600 graphs), one torch thread: PRISM's
one-off eigendecomposition, one training step of PRISM against CC's (the relational inference's
O(B^2) cost the reviewers question), and reading the raw TU text files."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import data_file


def _enzymes() -> Path:
    return data_file("tu/ENZYMES.npz")


def test_eigenpairs_of_every_enzymes_graph(benchmark):
    from methods.partial_label_graph.prism.spectral import smallest_eigenpairs
    from methods.partial_label_graph.tu_npz import load_tu_npz

    graphs = load_tu_npz(_enzymes())
    pairs = benchmark(smallest_eigenpairs, graphs, 8)
    benchmark.extra_info["graphs"] = graphs.num_graphs
    benchmark.extra_info["bands_present"] = round(float(pairs.valid.mean()), 3)


@pytest.mark.parametrize("method_name", ["cc", "prism"])
def test_one_training_step_of_64_graphs(benchmark, method_name):
    """Forward, loss (with PRISM's relational graphs, propagation and Q update after warm-up), backward, step."""
    import torch

    from harness.context import RunContext
    from methods.partial_label_graph.baselines.cc import CCLoss
    from methods.partial_label_graph.prism import PRISM
    from methods.partial_label_graph.task import PartialLabelClassification
    from methods.partial_label_graph.training import training_data
    from methods.partial_label_graph.tu_npz import load_tu_npz

    torch.set_num_threads(1)
    torch.manual_seed(0)
    inputs = PartialLabelClassification().instance(load_tu_npz(_enzymes()), {"q": 0.3}, seed=0).inputs
    method = {"cc": CCLoss, "prism": PRISM}[method_name]()
    data = training_data(inputs, "cpu")
    model = method.build_model(inputs.graphs.num_features, data.num_classes)
    method.setup(model, data, inputs, RunContext(seed=0, device="cpu", threads=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    batches = data.train_batches(64, torch.Generator().manual_seed(0))
    model.train()

    def step(batch, positions) -> None:  # noqa: ANN001
        loss = method.batch_loss(model, batch, positions, data, epoch=10)   # past PRISM's warm-up
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    benchmark.pedantic(step, args=batches[0], rounds=20, iterations=1, warmup_rounds=2)
    benchmark.extra_info["nodes_in_batch"] = int(batches[0][0].x.shape[0])


def test_read_enzymes_from_tu_text_files(benchmark, tmp_path):
    from methods.partial_label_graph.tu_raw import load_tu_raw
    from tests.partial_label_graph.conftest import write_tu_raw

    with np.load(_enzymes()) as z:
        edges = z["edge_index"]
        folder = write_tu_raw(tmp_path / "ENZYMES", "ENZYMES", edges, z["graph_ptr"], z["y"] + 1,
                              node_labels=z["node_labels"] + 1, attributes=z["x"])
    graphs = benchmark(load_tu_raw, folder)
    benchmark.extra_info["lines"] = int(edges.shape[1] + 3 * graphs.x.shape[0] + graphs.num_graphs)
