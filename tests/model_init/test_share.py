"""The paper's headline measure, a student's accuracy as a share of its source's, and the majority floor printed
beside every accuracy, on hand cases; and scored from a predictions table that holds the source's answers."""
from __future__ import annotations

import math

import pytest

from methods.model_init import metrics
from methods.model_init.data import generated
from methods.model_init.measures import learned_tasks, majority_floor, share_above_floor, source_share
from methods.model_init.task import SCORED, InitResult, Pretrain

CORPUS = {"train_per_domain": 10, "dev_per_domain": 4, "test_per_domain": 24, "ood_per_domain": 12, "entities": 10}
FIGURES = {"spectral_distance": 0.25, "parameters": 1000.0, "perplexity": 3.0, "cka": 0.5}


def test_the_majority_floor_takes_each_task_types_most_common_answer():
    answers = ["yes", "yes", "no", "box", "jar", "jar", "jar", "bag"]
    tasks = ["lang", "lang", "lang", "social", "social", "social", "social", "social"]
    # lang: "yes" twice of 3; social: "jar" three times of 5; together (2 + 3) / 8
    assert majority_floor(answers, tasks) == pytest.approx(5 / 8)
    # one task type over all lines: "jar" 3 of 8 (a pooled floor would be lower than the per-type one)
    assert majority_floor(answers, ["all"] * 8) == pytest.approx(3 / 8)


def test_the_share_of_the_source_raw_and_above_the_floor():
    # the paper's ratio: a student at 0.6 of a source at 0.8 keeps 75 %
    assert source_share(0.6, 0.8) == pytest.approx(0.75)
    # above a floor of 0.4 the source gains 0.4 and the student 0.2: half of it
    assert share_above_floor(0.6, 0.8, 0.4) == pytest.approx(0.5)
    assert share_above_floor(0.4, 0.8, 0.4) == 0.0 and share_above_floor(0.8, 0.8, 0.4) == 1.0
    assert share_above_floor(0.3, 0.8, 0.4) == pytest.approx(-0.25)  # below the floor: negative, not clipped
    assert math.isnan(share_above_floor(0.5, 0.4, 0.4)) and math.isnan(source_share(0.5, 0.0))


def test_a_table_with_the_sources_answers_scores_the_share_metrics():
    instance = Pretrain().instance(generated(corpus=CORPUS, threshold=2.0, tasks=["language"]), {}, 0)
    truth = instance.truth
    keys = list(truth.answers)
    assert keys and all(truth.tasks[k].startswith("language/") for k in keys)
    student = {k: (truth.answers[k] if i % 2 == 0 else "nothing") for i, k in enumerate(keys)}
    source = {k: (truth.answers[k] if i < len(keys) - 1 else "nothing") for i, k in enumerate(keys)}
    result = InitResult(student, (0.0, 2.0), (5.0, 3.0), FIGURES, source)
    task = Pretrain()
    wanted = {name: getattr(metrics, name.upper()) for name in
              ("accuracy", "source_accuracy", "majority_floor", "source_share", "share_above_floor",
               "source_min_lead")}
    scores = task.score(instance, task.checked(instance, task.predictions(instance, result)), wanted)
    n = len(keys)
    assert 0 < majority_floor(list(truth.answers.values()), list(truth.tasks.values())) < (n - 1) / n
    accuracy, theirs = math.ceil(n / 2) / n, (n - 1) / n
    floor = majority_floor([truth.answers[k] for k in keys], [truth.tasks[k] for k in keys])
    assert (scores["accuracy"], scores["source_accuracy"]) == pytest.approx((accuracy, theirs))
    assert scores["majority_floor"] == pytest.approx(floor)
    assert scores["source_share"] == pytest.approx(accuracy / theirs)
    assert scores["share_above_floor"] == pytest.approx((accuracy - floor) / (theirs - floor))
    # the source misses the last line only: its smallest lead is on that line's task type
    last = truth.tasks[keys[-1]]
    mine = [k for k in keys if truth.tasks[k] == last]
    lead = (len(mine) - 1) / len(mine) - majority_floor([truth.answers[k] for k in mine], [last] * len(mine))
    assert scores["source_min_lead"] == pytest.approx(lead)


def test_a_source_answering_some_lines_only_is_refused():
    instance = Pretrain().instance(generated(corpus=CORPUS, threshold=2.0), {}, 0)
    answers = dict(instance.truth.answers)
    partial = dict(list(answers.items())[:3])
    table = Pretrain().predictions(instance, InitResult(answers, (0.0, 2.0), (5.0, 3.0), FIGURES, partial))
    with pytest.raises(ValueError, match="source_answer rows must answer each"):
        Pretrain().score(instance, table, {"source_share": metrics.SOURCE_SHARE})


def test_the_task_types_a_source_learned_are_those_ten_points_above_their_floor():
    answers = ["yes", "yes", "yes", "no", "box", "jar", "bag", "jar", "a", "b"]
    tasks = ["lang"] * 4 + ["social"] * 4 + ["world"] * 2
    # lang: floor 0.75 ("yes"), the source 4/4: +0.25; social: floor 0.5 ("jar"), the source 3/4 (misses "bag"):
    # +0.25; world: floor 0.5, the source 1/2: +0.0
    predicted = ["yes", "yes", "yes", "no", "box", "jar", "jar", "jar", "a", "a"]
    assert learned_tasks(predicted, answers, tasks, 0.10) == pytest.approx({"lang": 0.25, "social": 0.25})
    assert learned_tasks(predicted, answers, tasks, 0.30) == {}


def test_only_the_learned_task_types_are_scored_when_the_run_names_them():
    instance = Pretrain().instance(generated(corpus=CORPUS, threshold=2.0), {}, 0)
    truth = instance.truth
    social = {k for k, t in truth.tasks.items() if t.startswith("social/")}
    student = {k: (truth.answers[k] if k in social else "nothing") for k in truth.answers}
    named = {**FIGURES, **{f"{SCORED}{t}": 0.5 for t in {truth.tasks[k] for k in social}}}
    task = Pretrain()
    wanted = {"accuracy": metrics.ACCURACY, "majority_floor": metrics.MAJORITY_FLOOR}
    scored = task.score(instance, task.predictions(instance, InitResult(student, (0.0, 2.0), (5.0, 3.0), named)),
                        wanted)
    every = task.score(instance, task.predictions(instance, InitResult(student, (0.0, 2.0), (5.0, 3.0), FIGURES)),
                       wanted)
    assert scored["accuracy"] == 1.0 and every["accuracy"] == pytest.approx(len(social) / len(truth.answers))
    assert scored["majority_floor"] == pytest.approx(majority_floor(
        [truth.answers[k] for k in social], [truth.tasks[k] for k in social]))
