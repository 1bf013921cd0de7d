"""The predictions table (answers, the dev-loss curve, the figures) is checked by the engine against the task's
schema, and by the task for what the schema cannot say: every test line answered once, a curve of increasing
steps. No model trains here: the table is written from the truth."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness import DataError
from harness.store import Store
from methods.model_init import metrics
from methods.model_init.data import generated
from methods.model_init.task import InitResult, Pretrain

CORPUS = {"train_per_domain": 10, "dev_per_domain": 4, "test_per_domain": 4, "ood_per_domain": 2, "entities": 10}
FIGURES = {"spectral_distance": 0.25, "parameters": 1000.0, "perplexity": 3.0, "cka": 0.5}
METRICS = {"accuracy": metrics.ACCURACY, "steps_to_threshold": metrics.STEPS_TO_THRESHOLD,
           "loss_auc": metrics.LOSS_AUC, "perplexity": metrics.PERPLEXITY, "cka": metrics.CKA}


@pytest.fixture(scope="module")
def instance():
    return Pretrain().instance(generated(corpus=CORPUS, threshold=2.0), {}, 0)


def table(instance, wrong: int = 0) -> pd.DataFrame:
    """The truth's answers (the first `wrong` of them replaced) and a curve crossing the threshold at step 4."""
    answers = {key: ("nothing" if i < wrong else word) for i, (key, word) in enumerate(instance.truth.answers.items())}
    return Pretrain().predictions(instance, InitResult(answers, (0.0, 2.0, 4.0), (5.0, 3.0, 1.5), FIGURES))


def test_a_table_scores_its_answers_curve_and_figures(instance):
    task = Pretrain()
    scores = task.score(instance, task.checked(instance, table(instance, wrong=3)), METRICS)
    assert scores["accuracy"] == pytest.approx(1 - 3 / len(instance.truth.answers))
    assert scores["steps_to_threshold"] == 4.0
    assert scores["loss_auc"] == pytest.approx((8.0 + 4.5) / 4)  # two trapezoids over steps 0 to 4
    assert (scores["perplexity"], scores["cka"]) == (3.0, 0.5)


@pytest.mark.parametrize(("change", "column", "message"), [
    (lambda t: t.drop(columns="step"), "step", "no column 'step'"),
    (lambda t: pd.concat([t, t[t["kind"] == "figure"].iloc[:1]]), "key",
     "a second row for kind 'figure', key 'spectral_distance', step 0.0"),
    (lambda t: t.assign(value=np.where(t["kind"] == "val_loss", np.inf, t["value"])), "value", "not a finite number"),
    (lambda t: t.assign(answer=t["answer"].where(t["kind"] != "answer", 7)), "answer", "7 is not a text"),
])
def test_the_engine_refuses_a_table_off_the_schema(instance, change, column, message):
    with pytest.raises(DataError, match=message) as error:
        Pretrain().checked(instance, change(table(instance)))
    assert error.value.field == column


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.drop(index=0), "answer each of the"),
    (lambda t: pd.concat([t, t.iloc[:1].assign(step=1.0)]), "answer each of the"),
    (lambda t: t.assign(step=t["step"].where(t["kind"] != "val_loss", 4.0 - t["step"])), "curve of increasing steps"),
])
def test_the_task_refuses_a_table_the_schema_lets_through(instance, change, message):
    task = Pretrain()
    with pytest.raises(ValueError, match=message):
        task.score(instance, task.checked(instance, change(table(instance))), METRICS)


SUITE = """\
schema_version: 1
suite: a_written_table
task: model_init.pretrain
defaults: {seeds: [0]}
datasets:
  small: {loader: generated, args: {corpus: CORPUS, threshold: 2.0}}
metrics: [accuracy, steps_to_threshold, loss_auc, perplexity, cka]
methods:
  theirs: {predictions: "tables/{seed}.csv"}
""".replace("CORPUS", str(CORPUS).replace("'", ""))


def test_a_csv_of_the_table_scores_as_the_table_through_harness_score(instance, cli, write_suite, tmp_path):
    """Written as CSV, the curve's empty keys and the empty answers come back empty: the schema lets them be."""
    written = table(instance, wrong=3)
    (tmp_path / "tables").mkdir()
    written.to_csv(tmp_path / "tables" / "0.csv", index=False)
    store = tmp_path / "store.sqlite"
    code, out, err = cli("score", str(write_suite(SUITE)), "--store", str(store), plugin=False)
    [record] = Store(store).records()
    assert code == 0 and record["status"] == "ok", (out, err, record.get("error"))
    task = Pretrain()
    assert record["metrics"] == pytest.approx(task.score(instance, task.checked(instance, written), METRICS))


def test_a_bad_csv_is_refused_naming_its_line_and_column(instance, cli, write_suite, tmp_path):
    written = table(instance)
    twice = pd.concat([written, written.iloc[-1:]])  # the last figure again, on the file's last line
    (tmp_path / "tables").mkdir()
    twice.to_csv(tmp_path / "tables" / "0.csv", index=False)
    store = tmp_path / "store.sqlite"
    code, _, _ = cli("score", str(write_suite(SUITE)), "--store", str(store), plugin=False)
    [record] = Store(store).records()
    line = len(twice) + 1  # the header is line 1
    assert code == 2 and f"{tmp_path / 'tables' / '0.csv'}:{line}: key: a second row for kind 'figure', key 'cka'" \
        in record["error"]
