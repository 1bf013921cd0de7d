"""The npz loader (schema checks, GADBench preprocessing, the real graphs) and the injected-SBM generator."""
from __future__ import annotations

import hashlib
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from harness import DataError
from methods.graph_anomaly.data import injected_sbm, load_npz, normalisation_report
from methods.graph_anomaly.graph import Graph
from methods.graph_anomaly.task import NodeScoring

REDDIT_CONTENT_SHA256 = "372db5d2f7d4b9d5b8590c093024c465ab63e7dcafecf7a4ca8908fce9415d9f"


def _arrays() -> dict[str, np.ndarray]:
    """A 5-node graph given one direction per edge, with a self loop and a duplicate to be cleaned."""
    return {
        "x": np.arange(15, dtype=np.float64).reshape(5, 3),
        "edge_index": np.array([[0, 1, 2, 2, 3, 1], [1, 2, 2, 3, 4, 2]], dtype=np.int32),
        "y": np.array([0, 1, 0, 0, 1], dtype=np.int32),
    }


def _write(tmp_path: Path, **arrays: np.ndarray) -> Path:
    path = tmp_path / "graph.npz"
    np.savez_compressed(path, **arrays)
    return path


def _statistics(graph: Graph) -> tuple[int, int, int, int]:
    """Nodes, directed edges, features and anomalies, as PROVENANCE.md tabulates them."""
    return graph.num_nodes, graph.edge_index.shape[1], graph.x.shape[1], int(graph.y.sum())


@pytest.mark.filterwarnings("ignore:.*normalised")
def test_load_npz_round_trips_a_graph_with_schema_dtypes(tmp_path):
    arrays = _arrays()
    graph = load_npz(_write(tmp_path, **arrays, name=np.array("toy")))
    assert graph.name == "toy" and graph.num_nodes == 5
    assert graph.x.dtype == np.float32 and np.array_equal(graph.x, arrays["x"])
    assert graph.edge_index.dtype == np.int64 and graph.y.dtype == np.int64
    assert np.array_equal(graph.y, arrays["y"])


@pytest.mark.filterwarnings("ignore:.*normalised")
def test_load_npz_names_the_graph_after_the_argument_then_the_file(tmp_path):
    path = _write(tmp_path, **_arrays())
    assert load_npz(path).name == "graph"
    assert load_npz(path, name="mine").name == "mine"


def test_load_npz_bidirects_and_drops_self_loops_and_duplicates_sorted(tmp_path):
    message = "normalised 4 directed edges into both directions, removed 1 self loop, removed 1 duplicate edge$"
    with pytest.warns(UserWarning, match=message):
        graph = load_npz(_write(tmp_path, **_arrays()))
    expected = sorted({(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2), (3, 4), (4, 3)})
    assert [tuple(e) for e in graph.edge_index.T.tolist()] == expected


def test_load_npz_accepts_a_graph_without_edges(tmp_path):
    with pytest.warns(UserWarning, match="5 isolated nodes"):
        graph = load_npz(_write(tmp_path, **{**_arrays(), "edge_index": np.zeros((2, 0), dtype=np.int64)}))
    assert graph.edge_index.shape == (2, 0)


def test_normalisation_report_counts_each_change_of_the_toy_graph():
    arrays = _arrays()  # one direction per edge, a self loop (2, 2) and the duplicate (1, 2)
    report = normalisation_report(arrays["edge_index"], arrays["x"], 5)
    assert report == {
        "self_loops": 1, "duplicate_edges": 1, "reverse_edges_added": 4, "isolated_nodes": 0, "constant_columns": [],
    }


def test_normalisation_report_matches_a_brute_force_count_on_random_multigraphs():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 15))
        edges = rng.integers(0, n, size=(2, int(rng.integers(0, 40))))
        x = rng.integers(0, 2, size=(n, 4)).astype(np.float32)
        pairs = [tuple(e) for e in edges.T.tolist()]
        distinct = {p for p in pairs if p[0] != p[1]}
        kept = {v for p in distinct for v in p}
        assert normalisation_report(edges, x, n) == {
            "self_loops": sum(a == b for a, b in pairs),
            "duplicate_edges": sum(a != b for a, b in pairs) - len(distinct),
            "reverse_edges_added": sum((b, a) not in distinct for a, b in distinct),
            "isolated_nodes": n - len(kept),
            "constant_columns": [c for c in range(4) if np.unique(x[:, c]).size == 1],
        }


def test_normalisation_report_finds_nothing_in_a_clean_graph():
    graph = injected_sbm(num_nodes=300, seed=2)
    report = normalisation_report(graph.edge_index, graph.x, graph.num_nodes)
    assert report == {**report, "self_loops": 0, "duplicate_edges": 0, "reverse_edges_added": 0, "constant_columns": []}


CHAIN = np.array([[0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3]])  # the path 0-1-2-3-4, both directions

NORMALISED_INPUT = {
    "directed-only edges": ({"edge_index": np.array([[0, 1, 2, 3], [1, 2, 3, 4]])},
                            "normalised 4 directed edges into both directions"),
    "self loops": ({"edge_index": np.array([[0, 1, 1, 2, 2, 3, 3, 4, 4, 4], [1, 0, 1, 3, 4, 2, 4, 2, 3, 4]])},
                   "removed 2 self loops"),
    "duplicate edges": ({"edge_index": np.array([[0, 1, 0, 1, 2, 3, 3, 4], [1, 0, 1, 0, 3, 2, 4, 3]])},
                        "removed 2 duplicate edges"),
    "isolated node": ({"edge_index": np.array([[0, 1, 1, 2], [1, 0, 2, 1]])}, "2 isolated nodes \\(kept\\)"),
    "constant columns": ({"x": np.c_[np.ones(5), np.arange(5.0), np.zeros(5)]},
                         "2 constant feature columns \\(0, 2\\) \\(kept\\)"),
}


@pytest.mark.parametrize("change, message", NORMALISED_INPUT.values(), ids=NORMALISED_INPUT.keys())
def test_load_npz_warns_once_naming_the_file_and_what_it_normalised(tmp_path, change, message):
    path = _write(tmp_path, **{**_arrays(), "edge_index": CHAIN, **change})
    with pytest.warns(UserWarning) as caught:
        graph = load_npz(path)
    assert len(caught) == 1 and str(caught[0].message).startswith(f"{path}: ")
    assert re.search(message, str(caught[0].message))
    keys = graph.edge_index[0] * 5 + graph.edge_index[1]
    assert np.all(np.diff(keys) > 0) and np.all(graph.edge_index[0] != graph.edge_index[1])


def test_load_npz_is_silent_about_a_clean_graph(tmp_path):
    path = _write(tmp_path, **{**_arrays(), "edge_index": CHAIN})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_npz(path)


@pytest.mark.parametrize("y, anomalies", [(np.zeros(200), 0), (np.r_[np.ones(5), np.zeros(195)], 5)],
                         ids=["no anomalies", "too few for the split"])
def test_a_loaded_graph_with_too_few_anomalies_fails_at_the_split_naming_its_rule(tmp_path, y, anomalies):
    rng = np.random.default_rng(0)
    edges = rng.integers(0, 200, size=(2, 800))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the random edges need cleaning; not the point here
        graph = load_npz(_write(tmp_path, x=rng.normal(size=(200, 3)), edge_index=edges, y=y.astype(np.int64)))
    with pytest.raises(DataError, match="train_pos") as caught:
        NodeScoring().instance(graph, {}, seed=0)
    assert caught.value.field == "split" and "graph" in str(caught.value) and caught.value.hint


BAD_CONTENT = {
    "missing x": ({"x": None}, "x", "archive holds: edge_index, y"),
    "x not a matrix": ({"x": np.zeros(5)}, "x", "shape"),
    "x not numeric": ({"x": np.array([["a"]] * 5)}, "x", "numeric"),
    "x not finite": ({"x": np.array([[0.0, np.nan, 1.0]] + [[0.0] * 3] * 4)}, "x", "1 of 5 rows"),
    "x overflows float32": ({"x": np.full((5, 3), 1e300)}, "x", "float32"),
    "missing edge_index": ({"edge_index": None}, "edge_index", "missing"),
    "edge_index transposed": ({"edge_index": np.array([[0, 1], [1, 2], [2, 3]])}, "edge_index", "[2, E]"),
    "edge_index of floats": ({"edge_index": np.array([[0.0, 1.0], [1.0, 2.0]])}, "edge_index", "integers"),
    "edge id too large": ({"edge_index": np.array([[0, 1], [1, 5]])}, "edge_index", r"\[0, 5\)"),
    "negative edge id": ({"edge_index": np.array([[0, -1], [1, 2]])}, "edge_index", r"\[0, 5\)"),
    "missing y": ({"y": None}, "y", "missing"),
    "y too short": ({"y": np.array([0, 1, 0])}, "y", r"\[5\]"),
    "multi-class y": ({"y": np.array([0, 1, 2, 3, 0])}, "y", "found 0, 1, 2, 3"),
    "name not a string": ({"name": np.array([1, 2])}, "name", "0-d unicode"),
}


@pytest.mark.parametrize("change, field, message", BAD_CONTENT.values(), ids=BAD_CONTENT.keys())
def test_load_npz_rejects_bad_content_naming_the_field(tmp_path, change, field, message):
    arrays = {k: v for k, v in {**_arrays(), **change}.items() if v is not None}
    path = _write(tmp_path, **arrays)
    with pytest.raises(DataError, match=message) as caught:
        load_npz(path)
    assert caught.value.field == field and caught.value.file == path and caught.value.hint


@pytest.mark.parametrize(
    "content", [b"not a zip file", b"", b"PK\x03\x04 truncated"], ids=["text", "empty", "broken zip"],
)
def test_load_npz_rejects_a_file_that_is_not_an_npz_archive(tmp_path, content):
    path = tmp_path / "graph.npz"
    path.write_bytes(content)
    with pytest.raises(DataError, match="not a readable .npz archive") as caught:
        load_npz(path)
    assert caught.value.file == path


def test_load_npz_rejects_a_single_npy_array(tmp_path):
    path = tmp_path / "graph.npy"
    np.save(path, np.zeros(3))
    with pytest.raises(DataError, match="single .npy array"):
        load_npz(path)


def test_load_npz_rejects_pickled_object_arrays(tmp_path):
    path = _write(tmp_path, **{**_arrays(), "y": np.array([0, 1, 0, 0, None], dtype=object)})
    with pytest.raises(DataError) as caught:
        load_npz(path)
    assert caught.value.field == "y"


@pytest.mark.real_data
def test_reddit_loads_with_the_provenance_statistics_and_content_hash(real_graph_path):
    graph = load_npz(real_graph_path("reddit"))
    assert graph.name == "reddit"
    assert _statistics(graph) == (10_984, 157_032, 64, 366)
    digest = hashlib.sha256(graph.x.tobytes() + graph.edge_index.tobytes() + graph.y.tobytes()).hexdigest()
    assert digest == REDDIT_CONTENT_SHA256, "preprocessing must leave an already clean graph unchanged"


@pytest.mark.real_data
def test_tolokers_loads_with_the_provenance_statistics(real_graph_path):
    graph = load_npz(real_graph_path("tolokers"))
    assert graph.name == "tolokers"
    assert _statistics(graph) == (11_758, 1_038_000, 10, 2_566)


def test_injected_sbm_is_deterministic_per_seed():
    first, again, other = injected_sbm(seed=3), injected_sbm(seed=3), injected_sbm(seed=4)
    for field in ("x", "edge_index", "y"):
        assert np.array_equal(getattr(first, field), getattr(again, field))
    assert not np.array_equal(first.y, other.y)


def test_injected_sbm_labels_exactly_the_injected_outliers():
    graph = injected_sbm(num_nodes=500, num_contextual=15, num_structural=20, clique_size=5)
    assert graph.y.dtype == np.int64 and int(graph.y.sum()) == 35 and set(np.unique(graph.y)) == {0, 1}
    assert graph.x.dtype == np.float32 and graph.x.shape == (500, 32)


def test_injected_sbm_edges_are_simple_and_bidirected():
    edge_index = injected_sbm().edge_index
    keys = edge_index[0] * 2000 + edge_index[1]
    assert np.all(np.diff(keys) > 0) and np.all(edge_index[0] != edge_index[1])
    assert np.array_equal(np.sort(edge_index[1] * 2000 + edge_index[0]), keys)


def test_injected_sbm_density_follows_the_block_probabilities():
    graph = injected_sbm(num_nodes=2000, num_blocks=4, num_contextual=0, num_structural=0, seed=1)
    block = np.arange(2000) * 4 // 2000
    same = block[graph.edge_index[0]] == block[graph.edge_index[1]]
    inside, across = same.sum() / 2, (~same).sum() / 2
    assert inside == pytest.approx(0.02 * 4 * 500 * 499 / 2, rel=0.05)
    assert across == pytest.approx(0.002 * 6 * 500 * 500, rel=0.1)


def test_contextual_outliers_copy_another_nodes_original_features():
    injected = injected_sbm(num_nodes=400, num_contextual=12, num_structural=0, seed=5)
    clean = injected_sbm(num_nodes=400, num_contextual=0, num_structural=0, seed=5)
    changed = np.flatnonzero((injected.x != clean.x).any(axis=1))
    assert np.array_equal(changed, np.flatnonzero(injected.y))
    for node in changed:
        sources = np.flatnonzero((clean.x == injected.x[node]).all(axis=1))
        assert sources.size == 1 and sources[0] != node


def test_structural_outliers_form_cliques_of_the_given_size():
    # without SBM edges, the injected cliques are the whole graph
    graph = injected_sbm(num_nodes=300, p_in=0.0, p_out=0.0, num_contextual=0, num_structural=30, clique_size=6)
    src, dst = graph.edge_index
    outliers = np.flatnonzero(graph.y)
    assert np.array_equal(np.unique(src), outliers)
    closed_neighbourhoods = {frozenset(dst[src == node]) | {node} for node in outliers}
    assert len(closed_neighbourhoods) == 5 and all(len(c) == 6 for c in closed_neighbourhoods)
    assert src.size == 5 * 6 * 5


BAD_ARGS = {
    "zero blocks": ({"num_blocks": 0}, "num_blocks"),
    "more blocks than nodes": ({"num_nodes": 3, "num_blocks": 4, "num_contextual": 0, "num_structural": 0},
                               "num_blocks"),
    "probability above one": ({"p_in": 1.5}, "p_in"),
    "negative probability": ({"p_out": -0.1}, "p_out"),
    "float count": ({"num_nodes": 100.0}, "num_nodes"),
    "negative noise": ({"feature_noise": -1.0}, "feature_noise"),
    "ragged cliques": ({"num_structural": 25, "clique_size": 10}, "multiple of clique_size"),
    "too many outliers": ({"num_nodes": 50, "num_contextual": 30, "num_structural": 30}, "60 outliers"),
    "too many candidates": ({"num_nodes": 100, "candidates": 100}, "candidates"),
}


@pytest.mark.parametrize("args, message", BAD_ARGS.values(), ids=BAD_ARGS.keys())
def test_injected_sbm_rejects_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        injected_sbm(**args)
