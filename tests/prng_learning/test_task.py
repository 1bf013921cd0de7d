"""The task end to end on its tiny instance with the references, the metrics against a hand computation, and
the bring-your-own loader's errors (file:line:field)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness import RunContext
from harness.errors import DataError
from methods.prng_learning.baselines.chance import Chance
from methods.prng_learning.baselines.ngram import NgramLookup
from methods.prng_learning.baselines.oracle import Oracle
from methods.prng_learning.baselines.solver import ClassicalSolver
from methods.prng_learning.data import PrngSource, byo, generated
from methods.prng_learning.metrics import (
    ACCURACY,
    FINAL_ACCURACY,
    LATE_ACCURACY,
    POS_90,
    POS_99,
    POST_HALF_ACCURACY,
    PRE_HALF_ACCURACY,
    Scored,
    first_position,
)
from methods.prng_learning.task import NextNumber

METRICS = {"accuracy": ACCURACY, "final_accuracy": FINAL_ACCURACY, "late_accuracy": LATE_ACCURACY,
           "pos_90": POS_90, "pos_99": POS_99}


def run(method: object, seed: int = 0, source: PrngSource | None = None) -> dict[str, float]:
    task = NextNumber()
    instance = task.tiny_instance(seed) if source is None else task.instance(source, {}, seed)
    output = method.run(instance.inputs, RunContext(seed=seed, device="cpu", threads=1))  # type: ignore[attr-defined]
    return task.score(instance, task.predictions(instance, output), METRICS)


def test_metrics_by_hand() -> None:
    numbers = np.array([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]])
    guesses = np.array([[-1, 0, 3, 4, 5], [-1, 2, 0, 4, 5]])
    scored = Scored(numbers, guesses)
    assert ACCURACY(scored) == pytest.approx(6 / 8)
    assert FINAL_ACCURACY(scored) == 1.0
    assert LATE_ACCURACY(scored) == 1.0  # positions 3 and 4
    assert POS_90(scored) == 3.0  # per position: 0.5, 0.5, 1, 1
    assert first_position(np.array([0.1, 0.2]), 0.9) == 3.0  # never: the sequence length (censored)


def test_the_half_period_split_by_hand() -> None:
    numbers = np.array([[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]])
    guesses = np.array([[-1, 2, 0, 0, 5, 6], [-1, 0, 0, 4, 5, 0]])
    scored = Scored(numbers, guesses, half_period=3)  # m = 6 for the arithmetic: before = 1, 2; after = 3, 4, 5
    assert PRE_HALF_ACCURACY(scored) == pytest.approx(1 / 4)
    assert POST_HALF_ACCURACY(scored) == pytest.approx(4 / 6)
    assert np.isnan(POST_HALF_ACCURACY(Scored(numbers, guesses, half_period=8)))  # L = 6 <= m/2: no such position


def test_the_solver_is_perfect_and_chance_is_not() -> None:
    solver = run(ClassicalSolver(max_candidates=10**6))
    chance = run(Chance())
    assert solver["final_accuracy"] == 1.0 and solver["pos_99"] <= 4
    assert chance["accuracy"] < 0.25  # 1/16 expected
    assert chance["pos_90"] == 16.0


def test_the_oracle_is_exact_from_the_first_position_and_the_ngram_table_runs_on_the_tiny_instance() -> None:
    assert run(Oracle())["accuracy"] == 1.0  # a plain LCG with its (a, c) known: x_i = a x_{i-1} + c from x_0
    ngram = run(NgramLookup(order=2, steps=60, batch=16))
    assert 0.0 <= ngram["accuracy"] <= 1.0


def test_the_oracle_needs_the_pairs(tmp_path: Path) -> None:
    source = byo(write(tmp_path, [{"numbers": [1, 2, 3, 4, 5]}]), k=5)
    with pytest.raises(DataError, match="oracle needs"):
        run(Oracle(), source=source)


def test_predictions_round_trip_and_shape_check() -> None:
    task = NextNumber()
    instance = task.tiny_instance(1)
    with pytest.raises(ValueError, match="array of guesses"):
        task.predictions(instance, np.zeros((2, 2)))
    table = task.predictions(instance, instance.truth)
    assert task.score(instance, table, {"accuracy": ACCURACY})["accuracy"] == 1.0


def test_seeds_draw_new_states_on_the_same_held_out_pairs() -> None:
    source = generated(k=5, seq_len=8)
    ids0, seq0 = source.sequences(0)
    ids1, seq1 = source.sequences(1)
    assert ids0 == ids1 and not np.array_equal(seq0, seq1)
    pairs = {(int(i.split("-")[0][1:]), int(i.split("-")[1][1:])) for i in ids0}
    assert pairs == set(source.split.test)  # ids name the unseen pair


def write(tmp_path: Path, lines: list[object]) -> Path:
    path = tmp_path / "seqs.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def test_byo_reads_sequences(tmp_path: Path) -> None:
    held = generated(k=5).split.test[0]
    path = write(tmp_path, [{"id": "x", "numbers": [1, 2, 3, 4, 5]}, {"numbers": [3, 2, 1, 0, 31], "a": held[0],
                                                                      "c": held[1]}])
    source = byo(path, k=5)
    ids, numbers = source.sequences(0)
    assert ids == ("x", "line2") and numbers.shape == (2, 5)
    assert source.pairs() is None  # the first line gives no (a, c)


@pytest.mark.parametrize(("line", "field", "message"), [
    ("{not json", None, "not valid JSON"),
    ({"numbers": [1, 2, 3, 4], "b": 1}, "b", "unknown key"),
    ({"numbers": [1, 2]}, "numbers", "at least 4"),
    ({"numbers": [1, 2, 3, 32]}, "numbers", "not an output"),
    ({"numbers": [1, 2, 3, 4], "a": 5}, "c", "both"),
    ({"numbers": [1, 2, 3, 4], "a": 2, "c": 4}, "a", "held-out"),
])
def test_byo_errors_name_file_line_and_field(tmp_path: Path, line: object, field: str | None, message: str) -> None:
    path = write(tmp_path, [{"numbers": [0, 1, 2, 3]}, line])
    with pytest.raises(DataError, match=message) as caught:
        byo(path, k=5)
    assert caught.value.line == 2 and caught.value.field == field
    assert str(path) in str(caught.value)


def test_byo_lengths_must_agree(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="same length"):
        byo(write(tmp_path, [{"numbers": [0, 1, 2, 3]}, {"numbers": [0, 1, 2, 3, 4]}]), k=5)


def test_loader_arguments_are_checked() -> None:
    with pytest.raises(DataError, match="tlcg"):
        generated(k=5, generator="tlcg:9")
    with pytest.raises(DataError):
        generated(k=40)
