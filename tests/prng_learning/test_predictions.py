"""The predictions table: checked by the engine against the seed's sequences, scored against the instance's
numbers (so a bootstrap draw rescores its drawn sequences), and a user's guesses scored from a file."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from harness import DataError, RunContext
from harness.store import Store
from methods.prng_learning.baselines.ngram import NgramLookup
from methods.prng_learning.metrics import ACCURACY, POS_90
from methods.prng_learning.task import NextNumber

METRICS = {"accuracy": ACCURACY, "pos_90": POS_90}
SUITE = """\
schema_version: 1
suite: pcg_byo
task: prng_learning.next_number
defaults: {seeds: [0]}
datasets:
  m16: {loader: generated, args: {k: 4, seq_len: 16, test_fraction: 0.25}}
metrics: [accuracy, pos_90]
methods:
  theirs: {predictions: "guesses/{method}-{dataset}-{seed}.csv"}
"""


def _ngram_table() -> tuple[NextNumber, object, pd.DataFrame]:
    task = NextNumber()
    instance = task.tiny_instance(0)  # the suite's dataset at seed 0
    output = NgramLookup(order=1, steps=60).run(instance.inputs, RunContext(seed=0, device="cpu", threads=1))
    return task, instance, task.predictions(instance, output)


def _half_right() -> tuple[NextNumber, object, pd.DataFrame, np.ndarray]:
    """Every other sequence guessed exactly, the others not at all."""
    task = NextNumber()
    instance = task.tiny_instance(0)
    right = np.arange(len(instance.truth)) % 2 == 0
    return task, instance, task.predictions(instance, np.where(right[:, None], instance.truth, -1)), right


def test_rows_are_matched_by_sequence_and_scored_against_the_instances_numbers() -> None:
    task, instance, table, right = _half_right()
    shuffled = table.sample(frac=1.0, random_state=0).assign(numbers="0")
    assert task.score(instance, task.checked(instance, shuffled), {"accuracy": ACCURACY}) == \
        {"accuracy": pytest.approx(right.mean())}


def test_a_bootstrap_draw_scores_its_drawn_sequences() -> None:
    task, instance, table, right = _half_right()
    draw = task.resample(instance, np.random.default_rng(3))
    picked = [instance.inputs.ids.index(name) for name in draw.inputs.ids]
    assert right[picked].mean() != right.mean()  # the draw is not balanced: its score must move
    assert task.score(draw, table, {"accuracy": ACCURACY})["accuracy"] == pytest.approx(right[picked].mean())


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.iloc[1:], "1 test sample(s) have no row, e.g. 'a"),
    (lambda t: pd.concat([t, t.iloc[[0]]]), "a second row for sequence 'a"),
    (lambda t: t.assign(sequence=t["sequence"].str.replace("a", "b")), "is not a test sample"),
    (lambda t: t.drop(columns="guesses"), "no column 'guesses'"),
])
def test_the_engine_refuses_a_table_without_one_row_per_sequence(change, message) -> None:
    task, instance, table = _ngram_table()
    with pytest.raises(DataError, match=re.escape(message)):
        task.checked(instance, change(table))


@pytest.mark.parametrize("guesses", ["1 2 3", "x " * 16, "1.5 " * 16])
def test_guesses_that_are_not_one_whole_number_per_position_name_their_sequence(guesses) -> None:
    task, instance, table = _ngram_table()
    table.loc[2, "guesses"] = guesses
    with pytest.raises(DataError, match=f"sequence '{table.loc[2, 'sequence']}': guesses must be 16 space-separated"):
        task.score(instance, task.checked(instance, table), METRICS)


def test_your_guesses_file_scores_as_the_methods_own_table_and_a_bad_line_is_named(cli, write_suite, store, tmp_path):
    task, instance, table = _ngram_table()
    path = tmp_path / "guesses" / "theirs-m16-0.csv"
    path.parent.mkdir()
    table[["sequence", "guesses"]].to_csv(path, index=False)
    suite = write_suite(SUITE)
    code, out, _ = cli("score", str(suite), "--store", str(store), plugin=False)
    [record] = Store(store).records()
    assert code == 0, out
    assert record["metrics"] == pytest.approx(task.score(instance, table, METRICS))
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, lines[1]]) + "\n")  # the first sequence again, on the last line
    code, _, _ = cli("score", str(suite), "--store", str(tmp_path / "other.sqlite"), plugin=False)
    [record] = Store(tmp_path / "other.sqlite").records()
    assert code == 2 and f"{path}:{len(lines) + 1}: sequence: a second row for sequence" in record["error"]
