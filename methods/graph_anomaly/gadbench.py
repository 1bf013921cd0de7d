"""GADBench's distributed dataset files (Tang et al., NeurIPS 2023), read without DGL.

GADBench ships each dataset as one `dgl.save_graphs` file holding a homogeneous graph with
ndata `feature` (float [N, F]), `label` (int [N]) and `train_masks`, `val_masks`, `test_masks`
([N, 20]; GADBench's `Dataset.split` uses columns 0-9 for the fully supervised trials and
10-19 for the semi-supervised ones). `load_gadbench` returns the graph cleaned like the npz
loader; the masks are read separately by `gadbench_masks` (the harness still draws its own
split; using the shipped masks as the split is a follow-up).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import DataError
from methods.graph_anomaly.data import check_arrays, graph_from_arrays
from methods.graph_anomaly.dgl_format import DGLFormatError, DGLGraph, read_graphs
from methods.graph_anomaly.graph import Graph

MASK_KEYS = ("train_masks", "val_masks", "test_masks")
_HINT = ("GADBench's files are written by dgl.save_graphs with ndata feature, label, train_masks, "
         "val_masks and test_masks (see the GADBench readme); download the file again if it is cut short.")


def load_gadbench(path: Path, name: str | None = None) -> Graph:
    """The graph of a GADBench file, named after the argument, else the file."""
    graph = _read(path)
    x = _ndata(graph, "feature", path)
    y = _ndata(graph, "label", path)
    x, edge_index, y = check_arrays(
        x, np.stack([graph.src, graph.dst]), y, path, fields=("feature", "edges", "label"), hint=_HINT,
    )
    return graph_from_arrays(name or Path(path).stem, x, edge_index, y, Path(path))


def gadbench_masks(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GADBench's train, validation and test masks, bool [N, trials] (20 trials in its files)."""
    graph = _read(path)
    masks = []
    for key in MASK_KEYS:
        mask = _ndata(graph, key, path)
        if mask.shape[:1] != (graph.num_nodes,) or mask.ndim != 2 or not np.isin(mask, (0, 1)).all():
            raise DataError(
                f"must be a 0/1 array of shape [{graph.num_nodes}, trials], got dtype {mask.dtype} and shape "
                f"{mask.shape}", file=path, field=key, hint=_HINT,
            )
        masks.append(mask.astype(bool))
    if len({m.shape for m in masks}) != 1:
        raise DataError(f"the masks disagree in shape: {[m.shape for m in masks]}", file=path, field="train_masks",
                        hint=_HINT)
    return masks[0], masks[1], masks[2]


def _read(path: Path) -> DGLGraph:
    try:
        graphs, _labels = read_graphs(path)
    except OSError as exc:
        raise DataError(f"cannot be read ({exc.strerror or exc})", file=path, hint=_HINT) from None
    except DGLFormatError as exc:
        raise DataError(f"is not a readable DGL graph file: {exc}", file=path, hint=_HINT) from None
    if len(graphs) != 1:
        raise DataError(f"holds {len(graphs)} graphs; a GADBench file holds exactly one", file=path, hint=_HINT)
    return graphs[0]


def _ndata(graph: DGLGraph, key: str, path: Path) -> np.ndarray:
    if key not in graph.ndata:
        present = ", ".join(sorted(graph.ndata)) or "none"
        raise DataError(f"node data is missing (the graph holds: {present})", file=path, field=key, hint=_HINT)
    return graph.ndata[key]
