"""The raw TU text loader: the same GraphSet as the npz form, folders and zips, and errors
that name the file and line."""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from harness import DataError
from methods.partial_label_graph.motifs import motif_graphs
from methods.partial_label_graph.tu_npz import load_tu_npz
from methods.partial_label_graph.tu_raw import load_tu_raw
from tests.partial_label_graph.conftest import TU, write_tu_raw


def _two_graphs(tmp_path: Path) -> Path:
    """A triangle (raw label 1) and an edge (raw label -1), one direction per edge, node labels 5 and 7."""
    return write_tu_raw(
        tmp_path / "TOY", "TOY", np.array([[0, 1, 0, 3], [1, 2, 2, 4]]), np.array([0, 3, 5]), np.array([1, -1]),
        node_labels=np.array([5, 7, 5, 7, 7]),
    )


def _line(folder: Path, part: str, number: int, text: str) -> None:
    """Replaces line `number` (1-based) of TOY_<part>.txt."""
    path = folder / f"TOY_{part}.txt"
    lines = path.read_text().splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n")


def test_raw_labels_are_renumbered_in_sorted_order_and_edges_made_undirected(tmp_path):
    graphs = load_tu_raw(_two_graphs(tmp_path), standardize=False)
    assert graphs.name == "TOY" and graphs.num_graphs == 2 and graphs.num_classes == 2
    assert np.array_equal(graphs.y, [1, 0])                                    # -1 -> 0, 1 -> 1
    assert np.array_equal(graphs.graph_ptr, [0, 3, 5])
    assert graphs.edge_index.shape == (2, 8) and np.array_equal(graphs.edge_ptr, [0, 6, 8])
    assert np.array_equal(graphs.x, np.eye(2)[[0, 1, 0, 1, 1]])                # one-hot of node labels 5, 7


def test_a_zip_as_downloaded_loads_like_the_folder(tmp_path):
    folder = _two_graphs(tmp_path)
    archive = tmp_path / "TOY.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in folder.iterdir():
            z.write(f, f"TOY/{f.name}")
    from_zip, from_folder = load_tu_raw(archive), load_tu_raw(folder)
    for key in ("x", "edge_index", "graph_ptr", "y"):
        assert np.array_equal(getattr(from_zip, key), getattr(from_folder, key))


def test_generated_graphs_survive_a_round_trip_through_the_text_format(tmp_path):
    original = motif_graphs(num_graphs=60, num_classes=4, seed=3)
    folder = write_tu_raw(tmp_path / "M", "M", original.edge_index, original.graph_ptr, original.y + 10,
                          attributes=original.x)
    loaded = load_tu_raw(folder, standardize=False)
    assert np.array_equal(loaded.edge_index, original.edge_index) and np.array_equal(loaded.y, original.y)
    assert np.array_equal(loaded.graph_ptr, original.graph_ptr) and np.array_equal(loaded.x, original.x)


@pytest.mark.real_data
@pytest.mark.skipif(not (TU / "ENZYMES.npz").is_file(), reason="shared/data/tu/ENZYMES.npz is not on this machine")
def test_enzymes_as_text_files_equals_the_npz_form(tmp_path):
    path = TU / "ENZYMES.npz"
    with np.load(path) as z:
        edges = z["edge_index"]
        directed = edges[:, edges[0] < edges[1]]   # one direction per edge: the loader must restore the other
        folder = write_tu_raw(tmp_path / "ENZYMES", "ENZYMES", directed, z["graph_ptr"], z["y"] + 1,
                              node_labels=z["node_labels"] + 1, attributes=z["x"])
    raw, npz = load_tu_raw(folder), load_tu_npz(path)
    assert raw.name == npz.name == "ENZYMES"
    for key in ("x", "edge_index", "graph_ptr", "y"):
        assert np.array_equal(getattr(raw, key), getattr(npz, key)), key


@pytest.mark.parametrize("part, line, text, message", [
    ("A", 2, "2; 3", "'2; 3' is not an integer|holds 1 comma-separated values"),
    ("A", 3, "1, 9", "node ids must lie in 1 .. 5"),
    ("A", 4, "1, 4", "edge joins graph 1 and graph 2"),
    ("graph_indicator", 5, "1", "graph ids must not decrease"),
    ("graph_indicator", 2, "", "is empty"),
    ("graph_labels", 1, "one", "'one' is not an integer"),
    ("node_labels", 5, "7, 1", "holds 2 comma-separated values, expected 1"),
])
def test_a_malformed_line_is_named_with_its_file_and_number(tmp_path, part, line, text, message):
    folder = _two_graphs(tmp_path)
    _line(folder, part, line, text)
    with pytest.raises(DataError, match=message) as error:
        load_tu_raw(folder)
    assert error.value.file.endswith(f"TOY_{part}.txt") and error.value.line == line


def test_per_node_files_must_have_a_line_per_node(tmp_path):
    folder = _two_graphs(tmp_path)
    (folder / "TOY_node_labels.txt").write_text("5\n7\n")
    with pytest.raises(DataError, match="holds 2 lines, but the graph_indicator file lists 5 nodes"):
        load_tu_raw(folder)


def test_graph_count_must_agree_between_indicator_and_labels(tmp_path):
    folder = _two_graphs(tmp_path)
    (folder / "TOY_graph_labels.txt").write_text("1\n-1\n1\n")
    with pytest.raises(DataError, match="names 2 graphs, but the graph_labels file labels 3"):
        load_tu_raw(folder)


def test_a_folder_without_the_required_files_says_which_is_missing(tmp_path):
    folder = _two_graphs(tmp_path)
    (folder / "TOY_graph_labels.txt").unlink()
    with pytest.raises(DataError, match="lacks TOY_graph_labels.txt"):
        load_tu_raw(folder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"exactly one DS_A.txt file \(found: none\)"):
        load_tu_raw(tmp_path / "empty")
