"""Candidate sets: the uniform protocol (the true label always, each wrong label with
probability q) and a user's own sets read from a file."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness import DataError
from methods.partial_label_graph.candidates import uniform_candidates
from methods.partial_label_graph.tu_npz import load_tu_npz
from methods.partial_label_graph.tu_raw import load_tu_raw
from tests.partial_label_graph.conftest import write_tu_raw


@pytest.mark.parametrize("q", [0.1, 0.3, 0.5, 0.7])
def test_each_wrong_label_enters_with_probability_q_and_the_true_label_always(q):
    y = np.arange(20_000) % 6
    mask = uniform_candidates(y, 6, q, np.random.default_rng(0))
    assert mask[np.arange(y.size), y].all()
    wrong = ~np.eye(6, dtype=bool)[y]
    rate = mask[wrong].mean()
    assert abs(rate - q) < 4 * np.sqrt(q * (1 - q) / wrong.sum())   # within four standard errors
    assert abs(mask.sum(axis=1).mean() - (1 + 5 * q)) < 0.05        # E|S| = 1 + q (C - 1)
    per_class = [mask[wrong & (np.arange(6) == c)].mean() for c in range(6)]
    assert np.ptp(per_class) < 0.03                                  # no wrong label is favoured


def test_q_zero_gives_the_true_label_alone_and_q_one_every_label():
    y = np.array([0, 2, 1])
    assert np.array_equal(uniform_candidates(y, 3, 0.0, np.random.default_rng(0)), np.eye(3, dtype=bool)[y])
    assert uniform_candidates(y, 3, 1.0, np.random.default_rng(0)).all()


def test_candidates_are_deterministic_in_the_generator():
    y = np.arange(100) % 4
    first = uniform_candidates(y, 4, 0.3, np.random.default_rng(5))
    assert np.array_equal(first, uniform_candidates(y, 4, 0.3, np.random.default_rng(5)))
    assert not np.array_equal(first, uniform_candidates(y, 4, 0.3, np.random.default_rng(6)))


def test_resampled_singletons_leave_no_set_of_size_one():
    y = np.arange(2_000) % 3
    mask = uniform_candidates(y, 3, 0.1, np.random.default_rng(0), resample_singletons=True)
    assert (mask.sum(axis=1) >= 2).all() and mask[np.arange(y.size), y].all()


@pytest.mark.parametrize("q", [-0.1, 1.5])
def test_q_outside_zero_one_is_refused(q):
    with pytest.raises(ValueError, match="q is a probability"):
        uniform_candidates(np.array([0]), 2, q, np.random.default_rng(0))


def _npz(tmp_path: Path) -> Path:
    """Three one-node graphs of classes 0, 1, 2."""
    path = tmp_path / "three.npz"
    np.savez(path, edge_index=np.zeros((2, 0), dtype=np.int64), graph_ptr=np.array([0, 1, 2, 3]),
             x=np.ones((3, 1), dtype=np.float32), y=np.array([0, 1, 2]))
    return path


def test_a_candidate_file_gives_each_graph_its_listed_labels(tmp_path):
    (tmp_path / "c.txt").write_text("0, 2\n1\n0 1 2\n\n")   # commas or spaces; a trailing blank line is fine
    graphs = load_tu_npz(_npz(tmp_path), candidates_path=tmp_path / "c.txt")
    assert np.array_equal(graphs.candidates, [[1, 0, 1], [0, 1, 0], [1, 1, 1]])


def test_raw_tu_candidates_are_written_in_the_raw_labels(tmp_path):
    folder = write_tu_raw(tmp_path / "T", "T", np.zeros((2, 0), dtype=np.int64), np.array([0, 1, 2]),
                          np.array([-1, 1]), attributes=np.ones((2, 1)))
    (tmp_path / "c.txt").write_text("-1, 1\n1\n")
    graphs = load_tu_raw(folder, candidates_path=tmp_path / "c.txt")
    assert np.array_equal(graphs.candidates, [[1, 1], [0, 1]])


@pytest.mark.parametrize("text, line, message", [
    ("0\n1\n", None, "holds 2 candidate sets for a dataset of 3 graphs"),
    ("0\n\n2\n", 2, "empty candidate set"),
    ("0\n1, x\n2\n", 2, "'x' is not an integer label"),
    ("0\n1\n2, 3\n", 3, r"label 3 is not one of the dataset's labels \(0, 1, 2\)"),
    ("0\n0, 2\n2\n", 2, r"graph 1's candidate set \{0, 2\} lacks its label 1"),
])
def test_a_bad_candidate_file_names_the_line_and_the_problem(tmp_path, text, line, message):
    (tmp_path / "c.txt").write_text(text)
    with pytest.raises(DataError, match=message) as error:
        load_tu_npz(_npz(tmp_path), candidates_path=tmp_path / "c.txt")
    assert error.value.line == line and error.value.file == tmp_path / "c.txt"
