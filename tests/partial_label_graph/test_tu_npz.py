"""The TU npz loader: schema checks with named fields, feature choice, the real files."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness import DataError
from methods.partial_label_graph.tu_npz import load_tu_npz
from tests.partial_label_graph.conftest import TU


def _arrays() -> dict[str, np.ndarray]:
    """Two graphs: a triangle (class 1) and an edge (class 0), one direction per edge."""
    return {
        "edge_index": np.array([[0, 1, 0, 3], [1, 2, 2, 4]]),
        "graph_ptr": np.array([0, 3, 5]),
        "x": np.arange(10, dtype=np.float32).reshape(5, 2),
        "y": np.array([1, 0]),
        "node_labels": np.array([0, 1, 0, 1, 1]),
    }


def _write(tmp_path: Path, **arrays: np.ndarray) -> Path:
    path = tmp_path / "toy.npz"
    np.savez(path, **arrays)
    return path


def test_a_small_set_loads_with_both_edge_directions_and_labels_appended(tmp_path):
    graphs = load_tu_npz(_write(tmp_path, **_arrays()), standardize=False)
    assert graphs.num_graphs == 2 and graphs.num_classes == 2 and graphs.name == "toy"
    assert graphs.edge_index.shape == (2, 8) and np.array_equal(graphs.edge_ptr, [0, 6, 8])
    assert np.array_equal(graphs.x[:, 2:], np.eye(2)[[0, 1, 0, 1, 1]])   # auto: attributes + one-hot labels


def test_standardized_columns_have_zero_mean_and_unit_spread(tmp_path):
    x = load_tu_npz(_write(tmp_path, **_arrays())).x
    np.testing.assert_allclose(x.mean(axis=0), 0, atol=1e-6)
    np.testing.assert_allclose(x.std(axis=0), 1, atol=1e-5)


@pytest.mark.parametrize("change, field, message", [
    ({"graph_ptr": np.array([0, 3, 4])}, "graph_ptr", "from 0 to N = 5"),
    ({"graph_ptr": np.array([0, 0, 5])}, "graph_ptr", "graph 0 has no node"),
    ({"y": np.array([1, 1])}, "y", "every class present"),
    ({"edge_index": np.array([[0, 2], [1, 3]])}, "edge_index", "joins nodes of graphs 0 and 1"),
    ({"edge_index": np.array([[0], [9]])}, "edge_index", r"must lie in \[0, 5\)"),
    ({"x": np.full((5, 2), np.nan)}, "x", "finite numeric"),
])
def test_schema_violations_name_the_field(tmp_path, change, field, message):
    with pytest.raises(DataError, match=message) as error:
        load_tu_npz(_write(tmp_path, **(_arrays() | change)))
    assert error.value.field == field and str(tmp_path) in str(error.value)


def test_a_missing_array_is_named(tmp_path):
    arrays = _arrays()
    del arrays["graph_ptr"]
    with pytest.raises(DataError, match="array is missing") as error:
        load_tu_npz(_write(tmp_path, **arrays))
    assert error.value.field == "graph_ptr"


def test_label_features_without_node_labels_are_a_user_error(tmp_path):
    arrays = _arrays()
    del arrays["node_labels"]
    with pytest.raises(DataError, match="needs node labels"):
        load_tu_npz(_write(tmp_path, **arrays), features="labels")


@pytest.mark.real_data
@pytest.mark.skipif(not (TU / "ENZYMES.npz").is_file(), reason="shared/data/tu/ENZYMES.npz is not on this machine")
def test_enzymes_matches_its_published_statistics():
    graphs = load_tu_npz(TU / "ENZYMES.npz")
    assert (graphs.num_graphs, graphs.num_classes, graphs.x.shape) == (600, 6, (19_580, 21))
    assert graphs.edge_index.shape[1] == 2 * 37_282 and np.array_equal(np.bincount(graphs.y), np.full(6, 100))


@pytest.mark.real_data
@pytest.mark.skipif(not (TU / "MUTAG.npz").is_file(), reason="shared/data/tu/MUTAG.npz is not on this machine")
def test_mutag_keeps_its_one_hot_features_without_a_second_copy():
    assert load_tu_npz(TU / "MUTAG.npz").x.shape == (3_371, 7)
