"""Bring your own model: export the puzzles, write its answers as the task's predictions table (a file per seed),
score them through a suite (end to end, equal to a method's own table), and every mistake in a file named with
its line and column."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness import RunContext
from harness.prediction_files import read_predictions_file
from harness.store import Store
from methods.visual_reasoning.baselines.classical import ClassicalSolver
from methods.visual_reasoning.data import PuzzleSource, generate, generated
from methods.visual_reasoning.export import export
from methods.visual_reasoning.task import VisualPuzzles

TASK = VisualPuzzles()


def _write(path, records) -> None:  # noqa: ANN001
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


def test_export_writes_one_png_and_one_index_line_per_puzzle(tmp_path):
    index = export(PuzzleSource("maze", "easy", 3), [0, 1], tmp_path)
    lines = [json.loads(line) for line in index.read_text().splitlines()]
    assert [line["id"] for line in lines] == [f"maze-easy-s{s}-000{i}" for s in (0, 1) for i in range(3)]
    assert all((tmp_path / line["image"]).stat().st_size > 0 for line in lines)
    assert lines[0]["prompt"] == generate("maze", "easy", 0, 0).prompt


def _classical_table(seed: int) -> pd.DataFrame:
    """The classical method's own predictions table of the suite's dataset and `seed`."""
    instance = TASK.instance(generated("chart", "easy", 4), {}, seed)
    return TASK.predictions(instance, ClassicalSolver(samples=2).run(instance.inputs, RunContext(seed, "cpu", 1)))


def _my_answers(seed: int) -> list[dict[str, object]]:
    """A model's answers: seed 0 right at first on 2 of 4 charts and always at its surer second try; seed 1
    leaves its last chart out (unanswered: wrong, and counted by `answered`)."""
    rows = []
    for index in range(3 if seed else 4):
        puzzle = generate("chart", "easy", seed, index)
        first = puzzle.answer if index < 2 else str(int(puzzle.answer) + 50)
        rows += [{"puzzle": puzzle.id, "sample": 0, "answer": f"<think>...</think><answer>{first}</answer>",
                  "score": 0.1, "images": 1},
                 {"puzzle": puzzle.id, "sample": 1, "answer": f"Answer: {puzzle.answer}", "score": 0.9, "images": 0}]
    return rows


SUITE = """\
schema_version: 1
suite: my_model
task: visual_reasoning.puzzles
defaults: {seeds: [0, 1], timeout: 5m, threads: 1}
datasets:
  chart_easy: {loader: generated, args: {task: chart, difficulty: easy, count: 4}}
metrics: [accuracy, pass_at_2, best_of_2, answered, with_images]
methods:
  classical: {impl: classical, params: {samples: 2}}
  classical_csv: {predictions: "answers/{method}/{dataset}/{seed}.csv"}
  mine: {predictions: "answers/{method}/{dataset}/{seed}.jsonl"}
"""


@pytest.fixture
def answers(tmp_path) -> Path:
    """Per seed: the classical method's table as CSV (its chart answers, "35", stay texts), my model's as JSONL."""
    for seed in (0, 1):
        folder = tmp_path / "answers"
        (folder / "classical_csv" / "chart_easy").mkdir(parents=True, exist_ok=True)
        (folder / "mine" / "chart_easy").mkdir(parents=True, exist_ok=True)
        _classical_table(seed).to_csv(folder / "classical_csv" / "chart_easy" / f"{seed}.csv", index=False)
        _write(folder / "mine" / "chart_easy" / f"{seed}.jsonl", _my_answers(seed))
    return tmp_path / "answers"


def test_a_models_answers_are_scored_from_predictions_files_as_a_methods_own_table_is(cli, write_suite, answers,
                                                                                       tmp_path):
    code, _, err = cli("run", str(write_suite(SUITE)), "--store", str(tmp_path / "a.sqlite"), "--executor", "inline",
                       plugin=False)
    assert code == 0, err
    runs = {(r["method"], r["seed"]): r["metrics"] for r in Store(tmp_path / "a.sqlite").records()}
    for seed in (0, 1):
        assert runs[("classical_csv", seed)] == runs[("classical", seed)]
        assert runs[("classical", seed)]["accuracy"] == 100.0
    assert (runs[("mine", 0)]["accuracy"], runs[("mine", 0)]["pass_at_2"], runs[("mine", 0)]["best_of_2"]) == (
        50.0, 100.0, 100.0)
    assert runs[("mine", 1)]["answered"] == 75.0 and runs[("mine", 1)]["with_images"] == 75.0


@pytest.mark.parametrize(("row", "message"), [
    ({"sample": "first"}, ":4: sample: 'first' is not an integer"),
    ({"puzzle": "chart-easy-s1-0000"}, ":4: puzzle: sample 'chart-easy-s1-0000' is not a test sample"),
    ({"sample": 0}, ":4: puzzle: a second row for puzzle 'chart-easy-s0-0001', sample 0"),
    ({"score": "high"}, ":4: score: 'high' is not a number"),
])
def test_a_bad_line_of_a_predictions_file_is_named_with_its_column(cli, write_suite, answers, tmp_path, row, message):
    path = answers / "mine" / "chart_easy" / "0.jsonl"
    rows = _my_answers(0)
    rows[3] = {**rows[3], **row}
    _write(path, rows)
    code, _, _ = cli("score", str(write_suite(SUITE)), "--store", str(tmp_path / "b.sqlite"), plugin=False)
    [failed] = [r for r in Store(tmp_path / "b.sqlite").records() if r["status"] == "failed"]
    assert code == 2 and (failed["method"], failed["seed"]) == ("mine", 0) and f"{path}{message}" in failed["error"]


def test_the_local_vlm_path_is_skipped_without_a_model_and_refuses_a_folder_that_is_no_model(tmp_path, capsys):

    from methods.visual_reasoning.hf_vlm import main

    index = export(PuzzleSource("search", "easy", 2), [0], tmp_path)
    assert main(["--puzzles", str(index), "--out", str(tmp_path / "a.jsonl")]) == 0
    assert "skipped: no local vision-language model" in capsys.readouterr().err
    assert not (tmp_path / "a.jsonl").exists()
    assert main(["--model", str(tmp_path), "--puzzles", str(index), "--out", str(tmp_path / "a.jsonl")]) == 3
    assert "is not a local model folder (no config.json)" in capsys.readouterr().err


def test_a_vlms_answers_become_a_predictions_file_per_seed_that_the_task_accepts(tmp_path):
    from methods.visual_reasoning.hf_vlm import answer_puzzles, write_answers

    index = export(PuzzleSource("search", "easy", 3), [0, 1], tmp_path)
    seen = []

    def fake_model(image, prompt, sample):  # noqa: ANN001, ANN202 - a stand-in for a loaded model
        seen.append((image.is_file(), "Which quadrant" in prompt, sample))
        return ("<answer>B</answer>", -0.5 if sample else -0.1)

    written = write_answers(answer_puzzles(fake_model, index, samples=2), str(tmp_path / "mine" / "{seed}.jsonl"))
    assert written == [tmp_path / "mine" / "0.jsonl", tmp_path / "mine" / "1.jsonl"]
    instance = TASK.instance(generated("search", "easy", 3), {}, 1)
    table, lines = read_predictions_file(written[1], TASK.predictions_schema)
    table = TASK.checked(instance, table, file=written[1], lines=lines)
    assert len(table) == 6 and table["score"].tolist()[:2] == [-0.1, -0.5]
    assert seen[:2] == [(True, True, False), (True, True, True)]
