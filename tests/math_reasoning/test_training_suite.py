"""The math_stat protocol end to end on a tiny student: a suite runs and stores every column; bad input fails
clearly."""
import re
import textwrap

import pandas as pd
import pytest

pytest.importorskip("transformers")
pytest.importorskip("tokenizers")
pytest.importorskip("math_verify")  # the math-reasoning extra: the student's answers are scored with it

from harness import DataError, Instance  # noqa: E402
from harness.api import run  # noqa: E402
from methods.math_reasoning.training_task import (ACCURACY_AVG, ACCURACY_HARD, ACCURACY_ID,  # noqa: E402
                                                  ACCURACY_OOD, SkillTraining, skill_training)

TINY = {"hidden_size": 32, "num_layers": 1, "num_heads": 2, "examples": 300, "steps": 20, "eval_examples": 5}


@pytest.fixture()
def model_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path / "models"))
    return tmp_path / "models"


@pytest.mark.slow
def test_a_tiny_stat_suite_stores_every_column_for_every_method(tmp_path, model_cache):
    suite = tmp_path / "tiny_stat.yaml"
    suite.write_text(textwrap.dedent(f"""\
        schema_version: 1
        suite: tiny_stat
        task: math_reasoning.training
        defaults: {{seeds: [0], device: cpu, threads: 1}}
        datasets:
          chains:
            loader: skill_training
            args:
              student: {{config: {TINY}}}
              teacher: {{seed: 1, config: {TINY}}}
              pool: 200
              validation: 20
              test: 12
              ood: 6
              budget: 24
              sft: {{steps: 3, batch_size: 8}}
        metrics: [accuracy_id, accuracy_hard, accuracy_ood, accuracy_avg]
        methods:
          base: {{impl: base}}
          math_train: {{impl: uniform_sft}}
          stat_sel: {{impl: stat_sel}}
          stat_syn: {{impl: stat_syn, params: {{max_rounds: 1}}}}
        """))
    frame = run(suite, store=tmp_path / "results.sqlite")
    assert set(frame["status"]) == {"ok"}, frame[["method", "status", "error"]].to_string()
    for column in ("accuracy_id", "accuracy_hard", "accuracy_ood", "accuracy_avg"):
        assert frame[f"metric.{column}"].notna().all()


TRUTH = pd.DataFrame({"id": ["q0", "q1", "q2", "q3"], "gold": ["1", "2", "3", "4"],
                      "subset": ["id", "hard", "id", "ood"]})
COLUMN_METRICS = {"id": ACCURACY_ID, "hard": ACCURACY_HARD, "ood": ACCURACY_OOD, "avg": ACCURACY_AVG}


def test_each_question_is_scored_in_the_instances_column_whatever_the_tables_order():
    task, instance = SkillTraining(), Instance(inputs=None, truth=TRUTH)
    table = pd.DataFrame({"id": ["q3", "q1", "q0", "q2"], "correct": [True, False, True, False],
                          "subset": ["id"] * 4})  # a wrong subset column is not trusted
    scores = task.score(instance, task.checked(instance, table), COLUMN_METRICS)
    assert scores == pytest.approx({"id": 100 / 3, "hard": 0.0, "ood": 100.0, "avg": (100 / 3 + 0 + 100) / 3})


@pytest.mark.parametrize(("table", "message"), [
    ({"id": ["q0", "q1", "q2"], "correct": [True] * 3}, "1 test sample(s) have no row, e.g. 'q3'"),
    ({"id": ["q0", "q1", "q2", "q3", "q3"], "correct": [True] * 5}, "a second row for id 'q3'"),
    ({"id": ["q0", "q1", "q2", "q3"], "correct": [1, 0, 2, 1]}, "2 is not true or false"),
])
def test_the_engine_refuses_a_table_without_one_verdict_per_test_question(table, message):
    instance = Instance(inputs=None, truth=TRUTH)
    with pytest.raises(DataError, match=re.escape(message)):
        SkillTraining().checked(instance, pd.DataFrame(table))


def test_a_budget_of_zero_names_its_field(model_cache):
    with pytest.raises(DataError, match="budget must be an integer >= 1"):
        skill_training(budget=0)


def test_an_unknown_sft_option_is_a_user_error(model_cache):
    with pytest.raises(DataError, match="bad sft recipe") as error:
        skill_training(sft={"epochs": 3})
    assert error.value.field == "args.sft"


def test_a_student_folder_without_a_tokenizer_is_named(tmp_path, model_cache):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "config.json").write_text("{}")
    with pytest.raises(DataError, match="has no tokenizer"):
        skill_training(student={"path": str(tmp_path / "student")})


def test_a_teacher_that_is_not_a_mapping_is_refused_before_any_model_loads(model_cache):
    with pytest.raises(DataError, match="teacher must be a mapping") as error:
        skill_training(teacher="llama")
    assert error.value.field == "args.teacher"
    assert not model_cache.exists()  # refused before the student was prepared
