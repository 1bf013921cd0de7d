"""Offline lm-eval, a private task-index cache, the tiny Llama folder and a one-dataset suite."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import methods.lm_eval_tasks  # noqa: F401 (registers the family when its entry point is not installed)

PLUGIN = str(Path(__file__).with_name("family_plugin.py"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

ONE_TASK_SUITE = """\
schema_version: 1
suite: lm_eval_one
task: lm_eval_tasks.evaluation
defaults: {{seeds: {seeds}, device: cpu, threads: 1}}
datasets:
  sst2: {{loader: tiny_task, args: {{task: {task}, limit: {limit}}}}}
metrics: [acc, acc_norm, exact_match]
methods:
  llama: {{impl: model, params: {{model: {{path: {model}}}, batch_size: 16}}}}
"""


@pytest.fixture(scope="session")
def tiny_llama() -> Path:
    """The zo_finetune family's tiny Llama (trained on first use, about 2.5 min on 2 cores; then cached)."""
    from methods.zo_finetune import tiny_model

    return tiny_model.prepare()


@pytest.fixture
def one_task_suite(tmp_path, tiny_llama):
    def write(task: str = "tiny_sst2", limit: int = 16, seeds: str = "[0]") -> Path:
        path = tmp_path / "suite.yaml"
        path.write_text(ONE_TASK_SUITE.format(task=task, limit=limit, seeds=seeds, model=tiny_llama))
        return path

    return write
