"""Mistakes in a dataset or model entry fail `validate` (exit 3) before anything runs, saying how to fix them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import DataError
from harness.method_params import InvalidParams
from harness.validate import validate_suite
from methods.lm_eval_tasks import task_index
from methods.lm_eval_tasks.metrics import ACC, ACC_NORM, EXACT_MATCH
from methods.lm_eval_tasks.model import LmEvalModel
from tests.lm_eval_tasks.conftest import PLUGIN

SUITE = """\
schema_version: 1
suite: lm_eval_check
task: lm_eval_tasks.evaluation
datasets:
  one: {{loader: {loader}, args: {args}}}
metrics: [acc]
methods:
  tiny: {{impl: model, params: {{model: {{tiny: zo_finetune}}}}}}
"""

TASK_YAML = """\
task: {name}
dataset_path: json
dataset_kwargs: {{data_files: {{test: docs.jsonl}}}}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{text}}}}"
doc_to_choice: ["no", "yes"]
doc_to_target: label
metric_list: [{{metric: acc}}]
"""


def _suite(tmp_path: Path, loader: str, args: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(loader=loader, args=args))
    return path


def test_misspelt_task_fails_validate_with_did_you_mean(tmp_path):
    suite = _suite(tmp_path, "tiny_task", "{task: tiny_sst3}")
    with pytest.raises(DataError, match="unknown lm-eval task 'tiny_sst3'") as caught:
        validate_suite(suite)
    assert "Did you mean 'tiny_sst2'" in str(caught.value) and caught.value.line == 5
    cli = subprocess.run([sys.executable, "-m", "harness.cli", "validate", str(suite), "--plugin", PLUGIN],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 3 and "Did you mean 'tiny_sst2'" in cli.stderr


def test_builtin_task_without_cached_data_names_the_cache_it_looked_in(tmp_path, monkeypatch):
    cache = tmp_path / "empty-datasets-cache"
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache))
    suite = _suite(tmp_path, "lm_eval_task", "{task: arc_easy, num_fewshot: 5}")
    with pytest.raises(DataError, match="allenai/ai2_arc") as caught:
        validate_suite(suite)
    assert str(cache / "allenai___ai2_arc") in str(caught.value) and "load_dataset" in str(caught.value)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    (tmp_path / "allenai___ai2_arc").mkdir()
    assert validate_suite(suite)[0] == 1  # once the data is cached, the entry validates


def test_a_group_is_checked_task_by_task(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    with pytest.raises(DataError, match="ai2_arc"):
        validate_suite(_suite(tmp_path, "lm_eval_task", "{task: ai2_arc}"))


def test_user_folder_index_is_cached_and_rebuilt_when_a_yaml_changes(tmp_path, monkeypatch):
    monkeypatch.setenv(task_index.INDEX_ENV, str(tmp_path / "index"))
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "first.yaml").write_text(TASK_YAML.format(name="first_task"))
    builds = []
    build = task_index._build
    monkeypatch.setattr(task_index, "_build", lambda f: builds.append(f) or build(f))
    assert "first_task" in task_index.task_index(folder).entries
    assert "first_task" in task_index.task_index(folder).entries
    assert len(builds) == 1  # the second look-up read the cached file
    (folder / "second.yaml").write_text(TASK_YAML.format(name="second_task"))
    assert {"first_task", "second_task"} <= set(task_index.task_index(folder).entries)
    assert len(builds) == 2
    with pytest.raises(DataError, match="Did you mean 'second_task'"):
        task_index.task_index(folder).check(["secnd_task"])


@pytest.mark.parametrize(("args", "message"), [
    ("{task: tiny_sst2, shots: 5}", "unexpected keyword argument 'shots'"),
    ("{task: tiny_sst2, num_fewshot: -1}", "num_fewshot must be a whole number"),
    ("{task: tiny_sst2, limit: 2.5}", "limit must be a whole number"),
    ("{task: []}", "task must be an lm-eval task"),
    ("{task: tiny_sst2, path: /elsewhere}", "unexpected keyword argument 'path'"),  # the tiny tasks have their folder
])
def test_bad_dataset_arguments_fail_validate_naming_the_argument(tmp_path, args, message):
    with pytest.raises(DataError, match=message):
        validate_suite(_suite(tmp_path, "tiny_task", args))


def test_a_missing_task_folder_is_named(tmp_path):
    with pytest.raises(DataError, match="no-such-folder"):
        validate_suite(_suite(tmp_path, "lm_eval_task", "{task: x, path: no-such-folder}"), root=tmp_path)


@pytest.mark.parametrize(("params", "message"), [
    ({"model": {}}, "model needs 'path' or 'tiny'"),
    ({"model": {"path": "/m", "seed": 1}}, "give one or the other"),
    ({"model": {"tiny": "zo_finetune", "layers": 2}}, "unknown model argument 'layers'"),
    ({"model": {"path": "/m"}, "model_args": {"pretrained": "/other"}}, "model_args may not set 'pretrained'"),
    ({"model": {"path": "/m"}, "dtype": "float8"}, "dtype"),
])
def test_bad_model_parameters_are_refused(params, message):
    with pytest.raises(InvalidParams, match=message):
        LmEvalModel(**params)


def test_metric_directions_are_lm_evals():
    from lm_eval.api.registry import is_higher_better

    for metric in (ACC, ACC_NORM, EXACT_MATCH):
        assert metric.higher_is_better == is_higher_better(metric.name)


def test_the_example_leaderboard_validates_once_its_data_is_cached(tmp_path, monkeypatch):
    example = Path(__file__).resolve().parents[2] / "methods" / "lm_eval_tasks" / "examples" / "leaderboard.yaml"
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    for repo in ("allenai___ai2_arc", "Rowan___hellaswag", "openai___gsm8k"):
        (tmp_path / repo).mkdir()
    assert validate_suite(example)[0] == 2


def test_a_user_yaml_naming_an_uncached_hub_dataset_fails_validate(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(task_index.INDEX_ENV, str(tmp_path / "index"))
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "hub.yaml").write_text(TASK_YAML.format(name="hub_task").replace("dataset_path: json",
                                                                               "dataset_path: someone/reviews"))
    with pytest.raises(DataError, match="'someone/reviews', which is not in the local datasets cache"):
        validate_suite(_suite(tmp_path, "lm_eval_task", "{task: hub_task, path: tasks}"), root=tmp_path)
