"""TU graph-classification sets in the project's npz form (shared/data/tu/PROVENANCE.md)."""
from __future__ import annotations

from pathlib import Path

from harness import DataError
from harness.array_files import read_npz
from methods.partial_label_graph.graphs import GraphSet
from methods.partial_label_graph.tu import SCHEMA_HINT, tu_graph_set


def load_tu_npz(
    path: Path, features: str = "auto", standardize: bool = True, name: str | None = None,
    candidates_path: Path | None = None,
) -> GraphSet:
    """A GraphSet from an npz archive; `features` and `standardize` as in `tu.node_features`.

    `candidates_path`: a text file of candidate sets, one line per graph (candidates.py);
    the npz stores classes 0 .. C-1, so candidates are written as those class ids.
    """
    archive = read_npz(path, SCHEMA_HINT)
    missing = [k for k in ("edge_index", "graph_ptr", "x", "y") if k not in archive]
    if missing:
        raise DataError(f"array is missing (the archive holds: {', '.join(sorted(archive))})",
                        file=path, field=missing[0], hint=SCHEMA_HINT)
    edge_index, ptr, x, y = (archive[k] for k in ("edge_index", "graph_ptr", "x", "y"))
    node_labels = archive.get("node_labels")
    stored_name = str(archive["name"]) if "name" in archive else None
    return tu_graph_set(
        path, name or stored_name or Path(path).stem, x, node_labels, edge_index, ptr, y,
        features=features, standardize=standardize, candidates_path=candidates_path,
    )
