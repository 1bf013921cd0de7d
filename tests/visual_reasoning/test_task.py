"""The task contract: methods see puzzles without answers, every puzzle must be answered, the reference solvers
order as they should, and the paper-layout tables and the best-of-N plot read a report's cells."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import harness
from harness import RunContext
from methods.visual_reasoning import metrics
from methods.visual_reasoning.baselines.classical import ClassicalSolver
from methods.visual_reasoning.baselines.cnn import SmallCnn
from methods.visual_reasoning.baselines.random_guess import RandomGuess
from methods.visual_reasoning.best_of_n import plot
from methods.visual_reasoning.data import generated
from methods.visual_reasoning.task import Answer, VisualPuzzles
from methods.visual_reasoning.tables import cited_table, synthetic_table

TASK = VisualPuzzles()
SUITES = Path(__file__).resolve().parents[2] / "suites"
METRICS = {"accuracy": metrics.ACCURACY, "pass_at_4": metrics.PASS_AT_4, "kendall_tau": metrics.KENDALL_TAU}


def _scores(instance, method) -> dict[str, float]:  # noqa: ANN001
    output = method.run(instance.inputs, RunContext(seed=0, device="cpu", threads=1))
    return TASK.score(instance, TASK.predictions(instance, output), METRICS)


def test_methods_see_no_answers_and_each_seed_is_a_new_set():
    instance = TASK.instance(generated("chart", "easy", 5), {}, 0)
    assert all(p.answer == "" and p.truth == {} for p in instance.inputs.puzzles)
    assert [p.id for p in instance.inputs.puzzles] == list(instance.truth)
    other = TASK.instance(generated("chart", "easy", 5), {}, 1)
    assert not set(other.truth) & set(instance.truth)


def test_every_puzzle_needs_an_answer():
    instance = TASK.instance(generated("search", "easy", 3), {}, 0)
    first = instance.inputs.puzzles[0].id
    with pytest.raises(ValueError, match="2 puzzle\\(s\\) have no answer"):
        TASK.predictions(instance, {first: [Answer("A")]})


@pytest.mark.parametrize("task", ["jigsaw", "maze", "search", "chart"])
def test_the_classical_solver_is_exact_and_random_guessing_is_not(task):
    instance = TASK.instance(generated(task, "medium", 20), {}, 0)
    classical, guessed = _scores(instance, ClassicalSolver(samples=4)), _scores(instance, RandomGuess(samples=4))
    assert classical["accuracy"] == classical["pass_at_4"] == 100.0
    assert guessed["accuracy"] < 50.0 and guessed["pass_at_4"] >= guessed["accuracy"] - 1e-9


def test_the_cnn_learns_easy_jigsaws_from_their_colour_gradients_within_seconds():
    instance = TASK.instance(generated("jigsaw", "easy", 20), {}, 0)
    learned = _scores(instance, SmallCnn(samples=4, train_puzzles=120, epochs=6))
    assert learned["accuracy"] >= 60.0 and learned["kendall_tau"] > 0.5


def _cells() -> pd.DataFrame:
    rows = []
    for method, level in (("random", 10.0), ("classical", 100.0)):
        for dataset in ("jigsaw_easy", "maze_easy", "search_easy", "chart_easy"):
            for metric in ("accuracy", "perm_accuracy", "kendall_tau", "path_optimal", "pass_at_1", "pass_at_2",
                           "pass_at_4", "best_of_2", "best_of_4"):
                rows.append({"source": "measured", "method": method, "dataset": dataset, "metric": metric,
                             "mean": level, "ci_low": level - 1, "ci_high": level + 1})
    rows.append({"source": "cited", "method": "thinkmorph_7b", "dataset": "VSP", "metric": "accuracy",
                 "mean": 75.83, "ci_low": np.nan, "ci_high": np.nan})
    return pd.DataFrame(rows)


def test_the_tables_put_each_solvers_task_figures_side_by_side_and_cite_the_paper_apart(tmp_path):
    text = synthetic_table(_cells())
    assert "| solver | jigsaw perm. acc. | jigsaw Kendall τ |" in text
    assert "| classical | 100.0 ± 1.0 | 100.00 ± 1.00 | 100.0 ± 1.0 | 100.0 ± 1.0 | 100.0 ± 1.0 |" in text
    assert "## hard" in text and "| random | — |" in text  # no hard cells in the input
    assert "| thinkmorph_7b | 75.83 | — |" in cited_table(_cells())
    plot(_cells(), tmp_path / "best_of_n.png")
    assert (tmp_path / "best_of_n.png").stat().st_size > 10_000


@pytest.mark.slow
def test_the_ci_suite_runs_and_its_claims_are_supported(cli, tmp_path):
    store = tmp_path / "results.sqlite"
    runs = harness.run(SUITES / "visual_puzzles_ci.yaml", store=store, jobs=2)  # the Python API, as users call it
    assert len(runs) == 64 and set(runs["status"]) == {"ok"}
    code, _, err = cli("report", str(SUITES / "visual_puzzles_ci.yaml"), "--store", str(store), "--out",
                       str(tmp_path / "report"), "--format", "md", plugin=False)
    report = (tmp_path / "report" / "report.md").read_text()
    assert code == 0 and report.count("| supported |") == 2, err
