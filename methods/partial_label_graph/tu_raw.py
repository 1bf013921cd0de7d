"""TU graph-classification sets as the TU Dortmund collection ships them: a folder, or the
downloaded zip, holding the text files of one dataset DS (format: the README of
chrsmrrs/tudataset and of every TU download):

| file | lines | content |
|---|---|---|
| DS_A.txt | one per directed edge | "i, j": 1-based node ids, all graphs' nodes numbered together |
| DS_graph_indicator.txt | one per node | the 1-based id of the node's graph, non-decreasing |
| DS_graph_labels.txt | one per graph | the graph's class (any integers, e.g. -1 / 1) |
| DS_node_labels.txt | one per node, optional | the node's label |
| DS_node_attributes.txt | one per node, optional | comma-separated floats |

Classes and node labels are renumbered 0 .. K-1 in sorted order of their raw values, as in
the npz form (shared/data/tu/PROVENANCE.md), so both loaders give the same `GraphSet`.
Edge labels and attributes are not read. A malformed line is a `DataError` naming the
file and line.
"""
from __future__ import annotations

import io
import math
import zipfile
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from harness import DataError
from methods.partial_label_graph.graphs import GraphSet
from methods.partial_label_graph.tu import tu_graph_set

Member = TypeVar("Member")  # a file of the dataset: a zip member's name or a Path

_HINT = ("A TU dataset is a folder or zip of DS_A.txt, DS_graph_indicator.txt, DS_graph_labels.txt and optionally "
         "DS_node_labels.txt, DS_node_attributes.txt (see the TU collection's README).")


def load_tu_raw(
    path: Path, features: str = "auto", standardize: bool = True, name: str | None = None,
    candidates_path: Path | None = None,
) -> GraphSet:
    """A GraphSet from a TU folder or zip; `features` and `standardize` as in `tu.node_features`.

    `candidates_path`: a text file of candidate sets, one line per graph (candidates.py),
    written in the raw labels of DS_graph_labels.txt.
    """
    prefix, texts = _dataset_texts(Path(path))
    indicator = _table(texts, "graph_indicator", columns=1, integer=True)[:, 0]
    raw_y = _table(texts, "graph_labels", columns=1, integer=True)[:, 0]
    graph_ptr = _graph_ptr(indicator, raw_y.size, texts["graph_indicator"][0])
    num_nodes = indicator.size
    edges = _table(texts, "A", columns=2, integer=True)
    edge_index = _edge_index(edges, graph_ptr, texts["A"][0])
    node_labels = attributes = None
    if "node_labels" in texts:
        table = _table(texts, "node_labels", columns=1, integer=True)
        raw_labels = _per_node(table, num_nodes, texts["node_labels"][0])
        node_labels = np.unique(raw_labels[:, 0], return_inverse=True)[1].astype(np.int64)
    if "node_attributes" in texts:
        attributes = _per_node(_table(texts, "node_attributes", columns=None, integer=False), num_nodes,
                               texts["node_attributes"][0])
    label_values, y = np.unique(raw_y, return_inverse=True)
    if attributes is not None:
        x = attributes
    elif node_labels is not None:
        x = np.eye(int(node_labels.max()) + 1)[node_labels]
    else:
        x = np.ones((num_nodes, 1))   # neither labels nor attributes (IMDB-BINARY): a constant feature
    return tu_graph_set(
        Path(path), name or prefix, x, node_labels, edge_index, graph_ptr, y.astype(np.int64),
        features=features, standardize=standardize, candidates_path=candidates_path, label_values=label_values,
    )


def _dataset_texts(path: Path) -> tuple[str, dict[str, tuple[str, str]]]:
    """(DS, {part: (where, text)}) for the parts present: "A", "graph_indicator", ..."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = {n: n for n in archive.namelist() if not n.endswith("/")}
            prefix, members = _parts(path, names)
            return prefix, {part: (f"{path}/{m}", _decoded(archive.read(m), f"{path}/{m}"))
                            for part, m in members.items()}
    if path.is_dir():
        files = {str(f.relative_to(path)): f for f in path.rglob("*.txt")}
        prefix, found = _parts(path, files)
        return prefix, {part: (str(f), _decoded(f.read_bytes(), str(f))) for part, f in found.items()}
    raise DataError("is neither a folder nor a zip archive of TU text files", file=path, hint=_HINT)


def _decoded(data: bytes, where: str) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        raise DataError(f"is not a UTF-8 text file ({exc})", file=where, hint=_HINT) from None


def _parts(path: Path, names: dict[str, Member]) -> tuple[str, dict[str, Member]]:
    """The one dataset in `names` (DS_A.txt's prefix) and its files by part."""
    adjacency = [n for n in names if n.endswith("_A.txt")]
    if len(adjacency) != 1:
        found = ", ".join(sorted(adjacency)) or "none"
        raise DataError(f"must hold exactly one DS_A.txt file (found: {found})", file=path, hint=_HINT)
    stem = adjacency[0][: -len("_A.txt")]
    parts = {part: names[f"{stem}_{part}.txt"]
             for part in ("A", "graph_indicator", "graph_labels", "node_labels", "node_attributes")
             if f"{stem}_{part}.txt" in names}
    for required in ("graph_indicator", "graph_labels"):
        if required not in parts:
            raise DataError(f"lacks {Path(stem).name}_{required}.txt beside {adjacency[0]}", file=path, hint=_HINT)
    return Path(stem).name, parts


def _table(texts: dict[str, tuple[str, str]], part: str, columns: int | None, integer: bool) -> np.ndarray:
    """The comma-separated numbers of one file, [lines, columns]; a `DataError` at the first bad line."""
    where, text = texts[part]
    text = text.rstrip()   # trailing blank lines are harmless; a blank line inside is an error
    if not text:
        return np.zeros((0, columns or 0), dtype=np.int64 if integer else np.float64)
    try:
        frame = pd.read_csv(io.StringIO(text), header=None, skip_blank_lines=False, skipinitialspace=True)
        values = frame.to_numpy(dtype=np.float64)
    except (ValueError, pd.errors.ParserError):
        values = None
    ok = (values is not None and (columns is None or values.shape[1] == columns) and np.isfinite(values).all()
          and (not integer or (values == np.round(values)).all()))
    if not ok:
        _raise_at_first_bad_line(where, text, columns, integer)
    return values.astype(np.int64) if integer else values


def _raise_at_first_bad_line(where: str, text: str, columns: int | None, integer: bool) -> None:
    """Finds the line `_table` could not read and says what is wrong with it."""
    kind = "an integer" if integer else "a number"
    lines = text.splitlines()
    expected = columns if columns is not None else len(lines[0].split(","))
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            _fail(where, number, "is empty")
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != expected:
            _fail(where, number, f"holds {len(fields)} comma-separated values, expected {expected}")
        for field in fields:
            try:
                value = int(field) if integer else float(field)
            except ValueError:
                _fail(where, number, f"{field!r} is not {kind}")
            if not math.isfinite(value):
                _fail(where, number, f"{field!r} is not a finite number")
    _fail(where, None, "could not be read as comma-separated numbers")


def _fail(where: str, line: int | None, message: str) -> None:
    raise DataError(message, file=where, line=line, hint=_HINT)


def _graph_ptr(indicator: np.ndarray, num_graphs: int, where: str) -> np.ndarray:
    """Each graph's node range from the per-node graph ids (1-based, non-decreasing, none empty)."""
    if indicator.size == 0:
        _fail(where, None, "lists no node")
    if (indicator < 1).any():
        _fail(where, int(np.flatnonzero(indicator < 1)[0]) + 1, "graph ids start at 1")
    if (np.diff(indicator) < 0).any():
        line = int(np.flatnonzero(np.diff(indicator) < 0)[0]) + 2
        _fail(where, line, "graph ids must not decrease: the nodes of a graph come in one block, in graph order")
    if indicator[-1] != num_graphs:
        _fail(where, indicator.size, f"names {indicator[-1]} graphs, but the graph_labels file labels {num_graphs}")
    counts = np.bincount(indicator - 1, minlength=num_graphs)
    if (counts == 0).any():
        _fail(where, None, f"graph {int(np.flatnonzero(counts == 0)[0]) + 1} has no node")
    return np.r_[0, np.cumsum(counts)].astype(np.int64)


def _edge_index(edges: np.ndarray, graph_ptr: np.ndarray, where: str) -> np.ndarray:
    """0-based [2, E] from the 1-based pairs, every edge within one graph."""
    num_nodes = int(graph_ptr[-1])
    outside = (edges < 1) | (edges > num_nodes)
    if outside.any():
        line = int(np.flatnonzero(outside.any(axis=1))[0]) + 1
        _fail(where, line, f"node ids must lie in 1 .. {num_nodes} (the graph_indicator file's lines)")
    edge_index = edges.T - 1
    graph_of = np.searchsorted(graph_ptr, edge_index, side="right") - 1
    crossing = graph_of[0] != graph_of[1]
    if crossing.any():
        k = int(np.flatnonzero(crossing)[0])
        _fail(where, k + 1, f"edge joins graph {graph_of[0, k] + 1} and graph {graph_of[1, k] + 1}; "
                            "edges must stay within a graph")
    return edge_index


def _per_node(values: np.ndarray, num_nodes: int, where: str) -> np.ndarray:
    if values.shape[0] != num_nodes:
        _fail(where, None, f"holds {values.shape[0]} lines, but the graph_indicator file lists {num_nodes} nodes")
    return values
