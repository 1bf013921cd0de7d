"""Candidate label sets by the uniform protocol of PRODEN (Lv et al., ICML 2020) and PiCO
(Wang et al., ICLR 2022): every wrong label enters a graph's set independently with
probability q, the true label always does; or a user's own candidate sets, read from a file."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from harness import DataError


def uniform_candidates(
    y: np.ndarray, num_classes: int, q: float, rng: np.random.Generator, resample_singletons: bool = False,
) -> np.ndarray:
    """bool [n, num_classes]: row i is the candidate set of a sample with true label y[i].

    The expected set size is 1 + q (C - 1). `resample_singletons` redraws sets that came out
    as the true label alone (some implementations do; the PRISM paper does not say), which
    makes the problem a little harder than plain uniform sampling at the same q.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q is a probability and must lie in [0, 1], got {q!r}")
    if resample_singletons and (q == 0.0 or num_classes < 2):
        raise ValueError("resample_singletons needs q > 0 and at least two classes, or no set could hold a wrong label")
    mask = _draw(y, num_classes, q, rng)
    while resample_singletons and (single := mask.sum(axis=1) == 1).any():
        mask[single] = _draw(y[single], num_classes, q, rng)
    return mask


def _draw(y: np.ndarray, num_classes: int, q: float, rng: np.random.Generator) -> np.ndarray:
    mask = rng.random((y.size, num_classes)) < q
    mask[np.arange(y.size), y] = True
    return mask


CANDIDATE_FILE_HINT = (
    "A candidate file has one line per graph, in the dataset's graph order, listing that graph's candidate "
    "labels separated by commas or spaces, e.g. '2, 5'. Labels are written as the dataset's own files write "
    "them (the raw values of a TU graph_labels file; the class ids 0 .. C-1 of an npz), and each set holds "
    "the graph's true label."
)


def read_candidate_sets(path: Path, y: np.ndarray, label_values: np.ndarray) -> np.ndarray:
    """bool [G, C] from a user's candidate file (format: `CANDIDATE_FILE_HINT`).

    `label_values[c]` is how the file writes class c. Every set must contain the graph's
    true label `y`: the partial-label protocol (PRISM, PRODEN, PiCO) assumes it, and a set
    without it nearly always means labels numbered differently from the dataset's.
    """
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot be read as text ({exc})", file=path, hint=CANDIDATE_FILE_HINT) from None
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != y.size:
        raise DataError(f"holds {len(lines)} candidate sets for a dataset of {y.size} graphs", file=path,
                        hint=CANDIDATE_FILE_HINT)
    class_of = {int(value): c for c, value in enumerate(label_values)}
    mask = np.zeros((y.size, len(label_values)), dtype=bool)
    for graph, line in enumerate(lines):
        problem = _mark_candidates(mask[graph], line, class_of)
        if problem is None and not mask[graph, y[graph]]:
            problem = f"graph {graph}'s candidate set {{{line.strip()}}} lacks its label {label_values[y[graph]]}"
        if problem is not None:
            raise DataError(problem, file=path, line=graph + 1, hint=CANDIDATE_FILE_HINT)
    return mask


def _mark_candidates(row: np.ndarray, line: str, class_of: dict[int, int]) -> str | None:
    """Sets `row` at the classes `line` lists; what is wrong with the line, else None."""
    tokens = line.replace(",", " ").split()
    if not tokens:
        return "empty candidate set"
    for token in tokens:
        try:
            value = int(token)
        except ValueError:
            return f"{token!r} is not an integer label"
        if value not in class_of:
            return f"label {value} is not one of the dataset's labels ({', '.join(map(str, class_of))})"
        row[class_of[value]] = True
    return None
