"""Graphs for node anomaly detection: the npz loaders (GAD graphs, Cora with injected outliers)
and an SBM with injected outliers.

Every graph leaves here the way GADBench and SAGAD preprocess theirs: undirected edges
stored in both directions, no self loops, no duplicates, sorted by (source, target). What
that cleaning changed in a file is reported with `warnings.warn`, one line per file.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import TypedDict, overload

import numpy as np

from harness import DataError
from harness.array_files import read_npz
from methods.graph_anomaly.injection import check_injection_args, inject_outliers
from methods.common.graphs import simple_undirected
from methods.graph_anomaly.graph import Graph

_SCHEMA_HINT = "See shared/data/graphs/PROVENANCE.md for the schema: x [N, F], edge_index [2, E], y [N]."
_NPZ_HINT = "Write it with numpy.savez or numpy.savez_compressed. " + _SCHEMA_HINT


class NormalisationReport(TypedDict):
    self_loops: int
    duplicate_edges: int
    reverse_edges_added: int
    isolated_nodes: int
    constant_columns: list[int]


def normalisation_report(edge_index: np.ndarray, x: np.ndarray, num_nodes: int) -> NormalisationReport:
    """What `simple_undirected` changes in `edge_index`, and what it leaves but is worth knowing.

    Counts edge entries: `self_loops` and `duplicate_edges` removed (a repeated ordered pair,
    loops excluded), `reverse_edges_added` (ordered pairs whose reverse was missing);
    `isolated_nodes` have no edge afterwards; `constant_columns` lists feature columns
    with a single value (kept: the harness does not drop features).
    """
    src, dst = edge_index.astype(np.int64)
    loops = src == dst
    keys = np.sort(src[~loops] * num_nodes + dst[~loops])
    unique = keys[np.r_[True, keys[1:] != keys[:-1]]] if keys.size else keys
    reverse = (unique % num_nodes) * num_nodes + unique // num_nodes
    # both sets hold distinct keys, so a repeat in their merged sort is a pair present both ways;
    # sorting beats np.isin here (0.03 s vs 0.19 s on Tolokers)
    both = np.sort(np.r_[unique, reverse])
    touched = np.zeros(num_nodes, dtype=bool)
    touched[unique // num_nodes] = touched[unique % num_nodes] = True
    constant = np.flatnonzero((x == x[:1]).all(axis=0)) if x.shape[0] else np.arange(0)
    return {
        "self_loops": int(loops.sum()),
        "duplicate_edges": int(keys.size - unique.size),
        "reverse_edges_added": int(unique.size - (both[1:] == both[:-1]).sum()),
        "isolated_nodes": int((~touched).sum()),
        "constant_columns": constant.tolist(),
    }


def describe_normalisation(report: NormalisationReport) -> str | None:
    """One line for the run's log, e.g. "normalised 3 directed edges into both directions; 1 isolated node"."""
    changes = [
        f"normalised {_plural(report['reverse_edges_added'], 'directed edge')} into both directions"
        if report["reverse_edges_added"] else "",
        f"removed {_plural(report['self_loops'], 'self loop')}" if report["self_loops"] else "",
        f"removed {_plural(report['duplicate_edges'], 'duplicate edge')}" if report["duplicate_edges"] else "",
    ]
    columns = report["constant_columns"]
    shown = ", ".join(map(str, columns[:10])) + (", ..." if len(columns) > 10 else "")
    kept = [
        _plural(report["isolated_nodes"], "isolated node") + " (kept)" if report["isolated_nodes"] else "",
        f"{_plural(len(columns), 'constant feature column')} ({shown}) (kept)" if columns else "",
    ]
    parts = [", ".join(p for p in changes if p), "; ".join(p for p in kept if p)]
    return "; ".join(p for p in parts if p) or None


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def graph_from_arrays(name: str, x: np.ndarray, edge_index: np.ndarray, y: np.ndarray, source: Path) -> Graph:
    """The cleaned graph from checked arrays, warning once with what cleaning `source` needed."""
    message = describe_normalisation(normalisation_report(edge_index, x, x.shape[0]))
    if message:
        warnings.warn(f"{source}: {message}", stacklevel=3)
    return Graph(name=name, x=x, edge_index=simple_undirected(edge_index, x.shape[0]), y=y)


def load_npz(path: Path, name: str | None = None) -> Graph:
    """A graph from a plain `.npz` archive (no pickles), checked against the schema in PROVENANCE.md."""
    archive = read_npz(path, _NPZ_HINT)
    x = _numeric_array(archive, "x", path)
    edge_index = _numeric_array(archive, "edge_index", path)
    y = _numeric_array(archive, "y", path)
    stored_name = _stored_name(archive, path)
    x, edge_index, y = check_arrays(x, edge_index, y, path)
    return graph_from_arrays(name or stored_name or Path(path).stem, x, edge_index, y, Path(path))


def load_injected(
    path: Path,
    num_contextual: int = 70,
    num_structural: int = 70,
    clique_size: int = 10,
    candidates: int = 50,
    seed: int = 0,
    name: str | None = None,
) -> Graph:
    """A multi-class attributed graph (e.g. Cora) with PyGOD's outliers injected, y = 1 on them.

    The file's class labels are ignored. Defaults match PyGOD's `inj_cora` (BOND, Liu et al.,
    NeurIPS 2022): 70 contextual and 70 structural outliers, as tabulated in the README of
    github.com/pygod-team/data; k = 50 candidates as in PyGOD's generator example
    (`gen_contextual_outlier(data, n=100, k=50)`). The clique size is not tabulated; 10 (7
    cliques) is read off the shipped `inj_cora.pt`: every edge it adds to Cora joins two of
    its 70 structural nodes (bit 1 of its y), and each of them gains at most 9 new neighbours.
    """
    archive = read_npz(path, _NPZ_HINT)
    x = _numeric_array(archive, "x", path)
    edge_index = _numeric_array(archive, "edge_index", path)
    stored_name = _stored_name(archive, path)
    x, edge_index, _ = check_arrays(x, edge_index, None, path)
    check_injection_args(x.shape[0], num_contextual, num_structural, clique_size, candidates)  # ValueError
    base = graph_from_arrays("", x, edge_index, np.zeros(x.shape[0], dtype=np.int64), Path(path))
    x, edges, y = inject_outliers(
        base.x, base.edge_index, num_contextual, num_structural, clique_size, candidates, np.random.default_rng(seed),
    )
    label = name or f"inj_{stored_name or Path(path).stem}"
    return Graph(name=label, x=x, edge_index=simple_undirected(edges, x.shape[0]), y=y)


def _numeric_array(archive: dict[str, np.ndarray], key: str, path: Path) -> np.ndarray:
    if key not in archive:
        present = ", ".join(sorted(archive)) or "none"
        raise DataError(f"array is missing (the archive holds: {present})", file=path, field=key, hint=_SCHEMA_HINT)
    array = archive[key]
    if array.dtype.kind not in "biuf":
        raise DataError(
            f"has dtype {array.dtype}, not a numeric one", file=path, field=key, hint="Store it as a numeric array.",
        )
    return array


def _stored_name(archive: dict[str, np.ndarray], path: Path) -> str | None:
    if "name" not in archive:
        return None
    value = archive["name"]
    if value.ndim != 0 or value.dtype.kind != "U":
        raise DataError(
            f"must be a 0-d unicode array, got dtype {value.dtype} and shape {value.shape}", file=path, field="name",
            hint="Store it as numpy.array('reddit'), or leave it out.",
        )
    return str(value)


@overload
def check_arrays(
    x: np.ndarray, edge_index: np.ndarray, y: np.ndarray, path: Path,
    fields: tuple[str, str, str] = ..., hint: str = ...,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


@overload
def check_arrays(
    x: np.ndarray, edge_index: np.ndarray, y: None, path: Path,
    fields: tuple[str, str, str] = ..., hint: str = ...,
) -> tuple[np.ndarray, np.ndarray, None]: ...


def check_arrays(
    x: np.ndarray, edge_index: np.ndarray, y: np.ndarray | None, path: Path,
    fields: tuple[str, str, str] = ("x", "edge_index", "y"), hint: str = _SCHEMA_HINT,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The arrays cast to the schema's dtypes, or a `DataError` naming the first broken field.

    `y` holds 0/1 anomaly labels; pass None for a graph whose labels are made here (injection).
    `fields` names the three arrays as the file does (GADBench: feature, edges, label).
    """
    x_key, edge_key, y_key = fields
    if x.ndim != 2 or x.shape[0] == 0:
        raise DataError(f"must have shape [N, F] with N > 0, got {x.shape}", file=path, field=x_key, hint=hint)
    num_nodes = x.shape[0]
    with np.errstate(over="ignore"):  # values beyond float32 become inf and are reported just below
        x = x.astype(np.float32)
    bad_rows = int((~np.isfinite(x)).any(axis=1).sum())
    if bad_rows:
        raise DataError(
            f"{bad_rows} of {num_nodes} rows hold NaN or infinite values (after casting to float32)",
            file=path, field=x_key, hint="Impute or drop those features before converting.",
        )
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        transposed = edge_index.ndim == 2 and edge_index.shape[1] == 2
        raise DataError(
            f"must have shape [2, E], got {edge_index.shape}", file=path, field=edge_key,
            hint="Transpose it (edge_index.T)." if transposed else hint,
        )
    if edge_index.dtype.kind not in "iu":
        raise DataError(
            f"has dtype {edge_index.dtype}; node ids must be integers", file=path, field=edge_key,
            hint="Store it as int64.",
        )
    if edge_index.size and (edge_index.min() < 0 or edge_index.max() >= num_nodes):
        raise DataError(
            f"node ids must lie in [0, {num_nodes}), found ids from {edge_index.min()} to {edge_index.max()}",
            file=path, field=edge_key, hint="Node ids index the rows of the features; renumber the nodes from 0.",
        )
    if y is None:
        return x, edge_index.astype(np.int64), None
    if y.shape != (num_nodes,):
        raise DataError(
            f"must have shape [{num_nodes}] (one label per node), got {y.shape}", file=path, field=y_key, hint=hint,
        )
    labels = np.unique(y)
    if not np.isin(labels, (0, 1)).all():
        shown = ", ".join(str(v) for v in labels[:8]) + (", ..." if labels.size > 8 else "")
        raise DataError(
            f"labels must be 0 (normal) or 1 (anomaly), found {shown}", file=path, field=y_key,
            hint="A multi-class graph such as Cora needs outliers injected first: use the loader "
                 "graph_anomaly.injected_npz.",
        )
    return x, edge_index.astype(np.int64), y.astype(np.int64)


def injected_sbm(
    num_nodes: int = 2000,
    num_blocks: int = 4,
    p_in: float = 0.02,
    p_out: float = 0.002,
    num_features: int = 32,
    feature_noise: float = 1.0,
    num_contextual: int = 40,
    num_structural: int = 40,
    clique_size: int = 10,
    candidates: int = 50,
    seed: int = 0,
) -> Graph:
    """A stochastic block model with per-block Gaussian features and PyGOD's injected outliers.

    Injection is `injection.inject_outliers` (BOND, Liu et al., NeurIPS 2022; PyGOD).
    """
    _check_generator_args(
        num_nodes, num_blocks, p_in, p_out, num_features, feature_noise,
        num_contextual, num_structural, clique_size, candidates,
    )
    rng = np.random.default_rng(seed)
    block = np.arange(num_nodes) * num_blocks // num_nodes
    edge_index = _sbm_edges(block, num_blocks, p_in, p_out, rng)
    means = rng.normal(size=(num_blocks, num_features))
    x = means[block] + feature_noise * rng.normal(size=(num_nodes, num_features))
    x, edge_index, y = inject_outliers(x, edge_index, num_contextual, num_structural, clique_size, candidates, rng)
    return Graph(
        name="injected_sbm", x=x.astype(np.float32), edge_index=simple_undirected(edge_index, num_nodes), y=y,
    )


def _sbm_edges(block: np.ndarray, num_blocks: int, p_in: float, p_out: float, rng: np.random.Generator) -> np.ndarray:
    """Each node pair is an edge independently; per block pair, a binomial count of distinct pairs."""
    parts = []
    for a in range(num_blocks):
        nodes_a = np.flatnonzero(block == a)
        for b in range(a, num_blocks):
            nodes_b = np.flatnonzero(block == b)
            if a == b:
                pairs = nodes_a.size * (nodes_a.size - 1) // 2
                picked = rng.choice(pairs, size=rng.binomial(pairs, p_in), replace=False)
                row, col = _lower_triangle_pair(picked)
                parts.append(np.stack([nodes_a[row], nodes_a[col]]))
            else:
                pairs = nodes_a.size * nodes_b.size
                picked = rng.choice(pairs, size=rng.binomial(pairs, p_out), replace=False)
                parts.append(np.stack([nodes_a[picked // nodes_b.size], nodes_b[picked % nodes_b.size]]))
    return simple_undirected(np.concatenate(parts, axis=1), block.size)


def _lower_triangle_pair(k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) with j < i for the linear index k = i(i-1)/2 + j, exact despite the float sqrt."""
    i = ((1 + np.sqrt(1 + 8 * k.astype(np.float64))) // 2).astype(np.int64)
    i -= i * (i - 1) // 2 > k
    i += (i + 1) * i // 2 <= k
    return i, k - i * (i - 1) // 2


def _check_generator_args(
    num_nodes: int, num_blocks: int, p_in: float, p_out: float, num_features: int, feature_noise: float,
    num_contextual: int, num_structural: int, clique_size: int, candidates: int,
) -> None:
    for key, value in {"num_nodes": num_nodes, "num_blocks": num_blocks, "num_features": num_features}.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{key} must be an integer, got {value!r}")
        if value < 0:
            raise ValueError(f"{key} must be non-negative, got {value}")
    for key, probability in {"p_in": p_in, "p_out": p_out}.items():
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"{key} is a probability and must lie in [0, 1], got {probability}")
    if not 1 <= num_blocks <= num_nodes:
        raise ValueError(f"num_blocks must lie in [1, num_nodes={num_nodes}], got {num_blocks}")
    if num_features < 1:
        raise ValueError("num_features must be at least 1")
    if not feature_noise >= 0.0:
        raise ValueError(f"feature_noise must be non-negative, got {feature_noise}")
    check_injection_args(num_nodes, num_contextual, num_structural, clique_size, candidates)
