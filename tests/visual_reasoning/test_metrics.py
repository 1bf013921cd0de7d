"""Grading and metrics: pass@k against a brute-force count, best-of-k against its definition, Kendall's tau
against scipy's, the relaxed chart tolerance, and unanswered answers scored as a guess at worst."""
from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau as scipy_kendalltau

from harness import DataError, Instance
from methods.visual_reasoning import metrics
from methods.visual_reasoning.data import generate
from methods.visual_reasoning.generators.chart import STEP, TOP
from methods.visual_reasoning.grading import grade, kendall_tau, scored_answers
from methods.visual_reasoning.task import VisualPuzzles


def _table(rows):  # noqa: ANN001
    return pd.DataFrame(rows, columns=["puzzle", "sample", "answer", "score", "images"])


def test_kendall_tau_equals_scipys_on_permutations():
    rng = np.random.default_rng(0)
    for size in (4, 9, 16):
        for _ in range(20):
            a, b = rng.permutation(size), rng.permutation(size)
            assert kendall_tau(a, b) == pytest.approx(scipy_kendalltau(a, b).statistic)


def test_pass_at_k_is_the_share_of_k_subsets_with_a_correct_answer():
    puzzle = generate("search", "easy", 0, 0)
    wrong = next(letter for letter in "ABCD" if letter != puzzle.answer)
    texts = [puzzle.answer, wrong, wrong, puzzle.answer, wrong, wrong]
    run = scored_answers({puzzle.id: puzzle}, _table([(puzzle.id, k, t, 0.0, 0) for k, t in enumerate(texts)]))
    right = [t == puzzle.answer for t in texts]
    for k in (1, 2, 4):
        subsets = list(itertools.combinations(right, k))
        assert metrics.pass_at(run, k) == pytest.approx(100 * np.mean([any(s) for s in subsets]))
    assert np.isnan(metrics.pass_at(run, 8))  # six answers cannot estimate pass@8


def test_best_of_k_grades_the_highest_scored_answer_among_the_first_k():
    puzzle = generate("search", "easy", 0, 1)
    wrong = next(letter for letter in "ABCD" if letter != puzzle.answer)
    rows = [(puzzle.id, 0, wrong, 0.5, 0), (puzzle.id, 1, puzzle.answer, 0.9, 0), (puzzle.id, 2, wrong, 0.95, 0),
            (puzzle.id, 3, wrong, 0.1, 0)]
    run = scored_answers({puzzle.id: puzzle}, _table(rows))
    assert (metrics.accuracy(run), metrics.best_of(run, 2), metrics.best_of(run, 4)) == (0.0, 100.0, 0.0)


def test_chart_answers_within_five_per_cent_are_correct():
    puzzle = generate("chart", "easy", 0, 0)
    value = float(puzzle.answer)
    assert grade(puzzle, f"{value * 1.049:.3f}").correct and not grade(puzzle, f"{value * 1.06:.3f}").correct


def test_on_the_charts_grid_of_fives_the_relaxed_tolerance_admits_off_grid_readings_only():
    """Issue 56: values are multiples of 5 up to 95, so 5 % of a value is under one step: a neighbouring grid
    value is always wrong (relaxed = exact for answers on the grid), an off-grid reading within 5 % is right."""
    puzzle = generate("chart", "easy", 0, 0)
    for value in range(STEP, TOP, STEP):
        truth = replace(puzzle, truth={"value": float(value)})
        assert not any(grade(truth, str(value + d)).correct for d in (-STEP, STEP))
        assert grade(truth, str(value * 1.049)).correct and not grade(truth, str(value * 1.06)).correct


def test_jigsaw_partial_credit_and_an_unparseable_answer_scores_like_a_guess():
    puzzle = generate("jigsaw", "medium", 0, 0)
    placement = [int(v) for v in puzzle.answer.split()]
    swapped = placement.copy()
    swapped[0], swapped[1] = swapped[1], swapped[0]
    graded = grade(puzzle, " ".join(map(str, swapped)))
    assert not graded.correct and graded.partial == pytest.approx(7 / 9) and 0 < graded.tau < 1
    assert grade(puzzle, "I cannot").tau == 0.0 and grade(puzzle, "I cannot").partial == 0.0


def test_a_maze_detour_is_valid_but_not_optimal():
    holes = np.zeros((4, 4), dtype=bool)
    from dataclasses import replace

    puzzle = replace(generate("maze", "easy", 0, 0), truth={"holes": holes, "start": (0, 0), "goal": (0, 2),
                                                           "shortest": 2})
    assert grade(puzzle, "R R").optimal == 1.0
    detour = grade(puzzle, "D R R U")
    assert detour.correct and detour.optimal == 0.0
    assert not grade(puzzle, "L R R").correct


def test_a_puzzle_without_answers_is_unanswered_and_unknown_ids_are_named():
    first, second = generate("maze", "easy", 0, 0), generate("maze", "easy", 0, 1)
    task, instance = VisualPuzzles(), Instance(inputs=None, truth={first.id: first, second.id: second})
    run = scored_answers(instance.truth, task.checked(instance, _table([(first.id, 0, first.answer, np.nan, 1)])))
    assert metrics.accuracy(run) == 50.0 and metrics.answered(run) == 50.0 and metrics.with_images(run) == 50.0
    empty = scored_answers(instance.truth, task.checked(instance, _table([(first.id, 0, None, 0.0, 0)])))
    assert metrics.answered(empty) == 0.0  # an empty answer (a CSV's empty field) is unanswered
    with pytest.raises(DataError, match="row 0 .*: sample 'maze-easy-s9-0000' is not a test sample"):
        task.checked(instance, _table([("maze-easy-s9-0000", 0, "R", 0.0, 0)]))
    with pytest.raises(DataError, match=f"row 1 .*: a second row for puzzle '{first.id}', sample 0"):
        task.checked(instance, _table([(first.id, 0, "R", 0.0, 0), (first.id, 0, "D", 0.0, 0)]))
