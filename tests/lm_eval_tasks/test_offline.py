"""Runs never download: data missing from the cache at run time is a `DataError` naming the cache folder."""
from __future__ import annotations

import pytest

from harness import RunContext
from harness.errors import DataError
from methods.lm_eval_tasks.data import lm_eval_task
from methods.lm_eval_tasks.model import LmEvalModel

HUB_TASK = """\
task: hub_task
dataset_path: someone/reviews
test_split: test
output_type: multiple_choice
doc_to_text: "{{text}}"
doc_to_choice: ["no", "yes"]
doc_to_target: label
metric_list: [{metric: acc, aggregation: mean, higher_is_better: true}]
"""


def test_data_the_cache_lacks_fails_the_run_naming_the_cache(tmp_path, monkeypatch, tiny_llama):
    cache = tmp_path / "cache"
    (cache / "someone___reviews").mkdir(parents=True)  # validation's check passes: a folder, but no data in it
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache))
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "hub.yaml").write_text(HUB_TASK)
    model = LmEvalModel(model={"path": str(tiny_llama)})
    with pytest.raises(DataError, match=f"could not read a task's data offline.*The datasets cache is {cache}"):
        model.run(lm_eval_task("hub_task", path=str(tmp_path / "tasks")), RunContext(seed=0, device="cpu", threads=1))
