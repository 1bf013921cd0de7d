"""Visual puzzles' hot paths (the issue's performance targets): generating 1,000 puzzles of each task (image,
prompt and ground truth, PNG encoded; target under 60 s per task), and scoring 10,000 answer texts (extraction
and grading, through the task's predictions table; target under 5 s): 9,984 here, 156 puzzles of each task
with 16 answers each."""
from __future__ import annotations

import pytest

PUZZLES = 1_000
ANSWERS = 10_000


@pytest.mark.parametrize("task", ["jigsaw", "maze", "search", "chart"])
def test_generate_1000_puzzles(benchmark, task):
    """1,000 medium puzzles of one task, each rendered and encoded as a PNG."""
    from methods.visual_reasoning.data import generate
    from methods.visual_reasoning.puzzle import png_bytes

    def generate_all() -> int:
        return sum(len(png_bytes(generate(task, "medium", 0, index).image)) for index in range(PUZZLES))

    size = benchmark.pedantic(generate_all, rounds=1, iterations=1)
    benchmark.extra_info["puzzles"] = PUZZLES
    benchmark.extra_info["mean_png_bytes"] = size / PUZZLES


def test_score_10000_answers(benchmark):
    """9,984 answers (16 per puzzle, 156 puzzles of each task) wrapped as models write them."""
    from harness.context import RunContext
    from methods.visual_reasoning import metrics
    from methods.visual_reasoning.baselines.random_guess import RandomGuess
    from methods.visual_reasoning.data import generated
    from methods.visual_reasoning.task import VisualPuzzles

    task = VisualPuzzles()
    every = {name: getattr(metrics, name.upper()) for name in ("accuracy", "pass_at_16", "best_of_16",
                                                                "kendall_tau", "path_optimal", "answered")}
    cases = []
    for kind in ("jigsaw", "maze", "search", "chart"):
        instance = task.instance(generated(kind, "medium", ANSWERS // 16 // 4), {}, 0)
        table = task.predictions(instance, RandomGuess(samples=16).run(instance.inputs, RunContext(0, "cpu", 1)))
        table["answer"] = "<think>Looking at the image ...</think> The answer is " + table["answer"].str[8:] + "."
        cases.append((instance, table))

    def score_all() -> list[dict[str, float]]:
        return [task.score(instance, table, every) for instance, table in cases]

    benchmark.pedantic(score_all, rounds=3, iterations=1)
    benchmark.extra_info["answers"] = int(sum(len(table) for _, table in cases))
