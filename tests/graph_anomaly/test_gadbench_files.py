"""DGL's save_graphs format (a DGL-written fixture, the writer's round trip, the documented layout)
and the GADBench loader on top of it (normalisation, masks, errors naming file and field)."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from harness import DataError
from methods.graph_anomaly.dgl_format import (
    FILE_MAGIC, HEADER_BYTES, DGLFormatError, DGLGraph, read_graphs, write_graphs,
)
from methods.graph_anomaly.gadbench import gadbench_masks, load_gadbench
from methods.graph_anomaly.task import NodeScoring

# written by DGL 2.1.0 with fixtures/make_gadbench_tiny.py; stored CSC-only, so reading it
# exercises undoing DGL's edge-id permutation
FIXTURE = Path(__file__).parent / "fixtures" / "gadbench_tiny.dgl"
FIXTURE_SRC = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 3, 3]
FIXTURE_DST = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 6, 9, 3]
FIXTURE_LABELS = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]


def _fixture_masks() -> list[np.ndarray]:
    residue = (np.arange(12)[:, None] + np.arange(20)[None, :]) % 3
    return [residue == k for k in range(3)]


def _gadbench_like(num_nodes: int = 250, anomalies: int = 45, seed: int = 0, **ndata: np.ndarray) -> DGLGraph:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, num_nodes, 600)
    masks = rng.random((3, num_nodes, 20)) < 0.3
    data = {"feature": rng.normal(size=(num_nodes, 5)).astype(np.float32),
            "label": np.r_[np.ones(anomalies), np.zeros(num_nodes - anomalies)].astype(np.int64),
            "train_masks": masks[0], "val_masks": masks[1], "test_masks": masks[2]}
    return DGLGraph(num_nodes, src, (src + rng.integers(1, num_nodes, 600)) % num_nodes, {**data, **ndata})


def test_reader_reads_the_dgl_written_fixture():
    (graph,), labels = read_graphs(FIXTURE)
    assert graph.num_nodes == 12 and labels == {} and graph.edata == {}
    assert graph.src.tolist() == FIXTURE_SRC and graph.dst.tolist() == FIXTURE_DST
    assert np.array_equal(graph.ndata["feature"], np.arange(48, dtype=np.float32).reshape(12, 4) / 10)
    assert graph.ndata["label"].dtype == np.int64 and graph.ndata["label"].tolist() == FIXTURE_LABELS
    # DGL stores torch.bool tensors as uint8
    for key, expected in zip(("train_masks", "val_masks", "test_masks"), _fixture_masks(), strict=True):
        assert graph.ndata[key].dtype == np.uint8 and np.array_equal(graph.ndata[key], expected)


def test_load_gadbench_normalises_the_fixture_and_says_what_it_changed():
    with pytest.warns(UserWarning, match=f"^{FIXTURE}: normalised 14 directed edges into both directions, "
                                         "removed 1 self loop$"):
        graph = load_gadbench(FIXTURE)
    assert graph.name == "gadbench_tiny" and graph.x.dtype == np.float32 and graph.y.tolist() == FIXTURE_LABELS
    expected = sorted({(a, b) for a, b in zip(FIXTURE_SRC, FIXTURE_DST, strict=True) if a != b}
                      | {(b, a) for a, b in zip(FIXTURE_SRC, FIXTURE_DST, strict=True) if a != b})
    assert [tuple(e) for e in graph.edge_index.T.tolist()] == expected
    with pytest.warns(UserWarning):
        assert load_gadbench(FIXTURE, name="tiny").name == "tiny"


def test_gadbench_masks_are_bool_nodes_by_trials():
    masks = gadbench_masks(FIXTURE)
    for mask, expected in zip(masks, _fixture_masks(), strict=True):
        assert mask.dtype == bool and mask.shape == (12, 20) and np.array_equal(mask, expected)


def test_the_fixture_has_too_few_anomalies_for_the_semi_supervised_split():
    with pytest.warns(UserWarning):
        graph = load_gadbench(FIXTURE)
    with pytest.raises(DataError, match="train_pos") as caught:
        NodeScoring().instance(graph, {}, seed=0)
    assert caught.value.field == "split"


@pytest.mark.filterwarnings("ignore:.*normalised")
def test_a_written_gadbench_like_file_loads_and_splits(tmp_path):
    path = tmp_path / "weibo"
    write_graphs(path, [_gadbench_like()])
    graph = load_gadbench(path)
    assert graph.name == "weibo" and graph.num_nodes == 250 and int(graph.y.sum()) == 45
    instance = NodeScoring().instance(graph, {}, seed=0)
    assert instance.inputs.train_y.sum() == 20 and instance.inputs.val_y.sum() == 20


def test_writer_round_trips_graphs_dtypes_and_the_label_dict(tmp_path):
    rng = np.random.default_rng(0)
    graphs = [
        DGLGraph(6, np.array([0, 1, 5]), np.array([1, 2, 0]),
                 {"f16": rng.normal(size=(6, 2)).astype(np.float16), "u8": np.arange(6, dtype=np.uint8),
                  "b": np.array([True, False] * 3), "i32": np.arange(6, dtype=np.int32).reshape(6, 1, 1),
                  "f64": rng.normal(size=6)},
                 {"w": np.array([0.5, 1.5, 2.5])}),
        DGLGraph(3, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), {}, {}),
    ]
    path = tmp_path / "graphs.bin"
    write_graphs(path, graphs, {"glabel": np.array([7, 8])})
    back, labels = read_graphs(path)
    assert labels.keys() == {"glabel"} and labels["glabel"].tolist() == [7, 8]
    for ours, theirs in zip(graphs, back, strict=True):
        assert theirs.num_nodes == ours.num_nodes
        assert np.array_equal(theirs.src, ours.src) and np.array_equal(theirs.dst, ours.dst)
        for mine, read in ((ours.ndata, theirs.ndata), (ours.edata, theirs.edata)):
            assert mine.keys() == read.keys()
            for key in mine:
                assert read[key].dtype == mine[key].dtype and np.array_equal(read[key], mine[key]), key


def test_written_files_follow_the_documented_layout(tmp_path):
    path = tmp_path / "one.bin"
    write_graphs(path, [DGLGraph(2, np.array([0]), np.array([1]))])
    data = path.read_bytes()
    assert struct.unpack_from("<QQQQ", data) == (FILE_MAGIC, 2, 2, 1)
    assert data[32:HEADER_BYTES] == bytes(HEADER_BYTES - 32)
    first = struct.unpack_from("<Q", data, HEADER_BYTES)[0]
    assert first == HEADER_BYTES + 16  # the offset itself, then an empty label dict (a zero count)
    assert struct.unpack_from("<Q", data, first)[0] == 0xDD589FBE35224ABF  # heterograph magic
    assert struct.unpack_from("<QQQQ", data, len(data) - 32) == (16, 1, first, 16)  # index string, its size


def _corrupt(tmp_path: Path, edit) -> Path:
    path = tmp_path / "broken"
    write_graphs(path, [_gadbench_like(num_nodes=20, anomalies=4)])
    path.write_bytes(edit(path.read_bytes()))
    return path


BROKEN_FILES = {
    "wrong magic": (lambda d: b"\0" * 8 + d[8:], "magic number"),
    "text file": (lambda d: b"feature,label\n0.1,0\n" * 3, "magic number"),
    "empty": (lambda d: b"", "ends early"),
    "cut in the header": (lambda d: d[:100], "ends early"),
    "cut in a tensor": (lambda d: d[:len(d) // 2], "ends early"),
    "cut in the index": (lambda d: d[:-12], "ends early|graph index"),
    "trailing bytes": (lambda d: d + b"\0" * 8, "graph index"),
    "old version": (lambda d: d[:8] + struct.pack("<Q", 1) + d[16:], "version 1"),
}


@pytest.mark.parametrize("edit, message", BROKEN_FILES.values(), ids=BROKEN_FILES.keys())
def test_load_gadbench_rejects_a_broken_file_naming_it(tmp_path, edit, message):
    path = _corrupt(tmp_path, edit)
    with pytest.raises(DataError, match=message) as caught:
        load_gadbench(path)
    assert caught.value.file == path and caught.value.hint
    with pytest.raises(DataError, match=message):
        gadbench_masks(path)


def test_reader_reports_where_it_stopped():
    with pytest.raises(DGLFormatError) as caught:
        read_graphs(FIXTURE.parent / "make_gadbench_tiny.py")
    assert caught.value.offset == 0


BAD_NDATA = {
    "missing label": ({"label": None}, "label", "holds: feature, test_masks"),
    "missing feature": ({"feature": None}, "feature", "missing"),
    "multi-class label": ({"label": np.arange(250) % 3}, "label", "found 0, 1, 2"),
    "NaN feature": ({"feature": np.full((250, 5), np.nan, dtype=np.float32)}, "feature", "250 of 250 rows"),
    "label per edge count": ({"label": np.zeros(249, dtype=np.int64)}, "label", r"\[250\]"),
}


@pytest.mark.parametrize("change, field, message", BAD_NDATA.values(), ids=BAD_NDATA.keys())
def test_load_gadbench_rejects_bad_node_data_naming_the_field(tmp_path, change, field, message):
    graph = _gadbench_like()
    ndata = {k: v for k, v in {**graph.ndata, **change}.items() if v is not None}
    path = tmp_path / "bad"
    write_graphs(path, [DGLGraph(graph.num_nodes, graph.src, graph.dst, ndata)])
    with pytest.raises(DataError, match=message) as caught:
        load_gadbench(path)
    assert caught.value.field == field and caught.value.file == path and caught.value.hint


@pytest.mark.parametrize("mask, message", [(None, "missing"), (np.full((250, 20), 2, dtype=np.int64), "0/1 array"),
                                           (np.zeros(250, dtype=bool), r"\[250, trials\]")],
                         ids=["missing", "not 0/1", "one trial as a vector"])
def test_gadbench_masks_rejects_bad_masks_naming_the_key(tmp_path, mask, message):
    graph = _gadbench_like()
    ndata = {k: v for k, v in {**graph.ndata, "val_masks": mask}.items() if v is not None}
    path = tmp_path / "bad"
    write_graphs(path, [DGLGraph(graph.num_nodes, graph.src, graph.dst, ndata)])
    with pytest.raises(DataError, match=message) as caught:
        gadbench_masks(path)
    assert caught.value.field == "val_masks"


def test_load_gadbench_rejects_a_file_of_several_graphs(tmp_path):
    path = tmp_path / "two"
    write_graphs(path, [_gadbench_like(), _gadbench_like(seed=1)])
    with pytest.raises(DataError, match="holds 2 graphs"):
        load_gadbench(path)
