"""The run's seed is lm-eval's sampling seed: sampled generations repeat with a seed and differ across seeds."""
from __future__ import annotations

from harness import RunContext
from methods.lm_eval_tasks.data import TINY_TASKS, TaskSelection
from methods.lm_eval_tasks.model import LmEvalModel

GENERATION = TaskSelection(("tiny_sst2_gen",), TINY_TASKS, limit=12)


def _responses(model: LmEvalModel, seed: int) -> list:
    output = model.run(GENERATION, RunContext(seed=seed, device="cpu", threads=1))
    return [sample["resps"] for sample in output.samples]


def test_sampled_generations_repeat_per_seed_and_differ_across_seeds(tiny_llama):
    sampled = LmEvalModel(model={"path": str(tiny_llama)}, generation={"do_sample": True, "temperature": 1.0})
    assert _responses(sampled, 0) == _responses(sampled, 0)
    assert _responses(sampled, 0) != _responses(sampled, 1)


def test_greedy_generations_do_not_depend_on_the_seed(tiny_llama):
    greedy = LmEvalModel(model={"path": str(tiny_llama)})
    assert _responses(greedy, 0) == _responses(greedy, 3)
