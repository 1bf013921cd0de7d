"""Bring your own answers: export the puzzles, answer them in JSONL, score them through a suite (end to end),
and every mistake in the file named with its line (exit 3 from the CLI)."""
from __future__ import annotations

import json

import pytest

from harness import DataError
from methods.visual_reasoning.byo import read_answers
from methods.visual_reasoning.data import PuzzleSource, generate
from methods.visual_reasoning.export import export


def _write(path, records) -> None:  # noqa: ANN001
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


def test_export_writes_one_png_and_one_index_line_per_puzzle(tmp_path):
    index = export(PuzzleSource("maze", "easy", 3), [0, 1], tmp_path)
    lines = [json.loads(line) for line in index.read_text().splitlines()]
    assert [line["id"] for line in lines] == [f"maze-easy-s{s}-000{i}" for s in (0, 1) for i in range(3)]
    assert all((tmp_path / line["image"]).stat().st_size > 0 for line in lines)
    assert lines[0]["prompt"] == generate("maze", "easy", 0, 0).prompt


def test_answers_are_read_in_sample_order_with_scores_and_images(tmp_path):
    (tmp_path / "step1.png").write_bytes(b"png")
    _write(tmp_path / "answers.jsonl", [
        {"id": "maze-easy-s0-0001", "answer": "R", "sample": 1, "score": -2.5},
        {"id": "maze-easy-s0-0001", "answer": "D", "images": ["step1.png"]}, "",
    ])
    recorded = read_answers(tmp_path / "answers.jsonl", "maze", "easy", 5)
    first, second = recorded.by_puzzle["maze-easy-s0-0001"]
    assert (first.answer, first.images, second.answer, second.score) == ("D", 1, "R", -2.5)


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", r"answers.jsonl:2:2: not valid JSON"),
    ("[1, 2]", r"answers.jsonl:2: a line holds one JSON object, got list"),
    ({"answer": "R"}, r"answers.jsonl:2: id: no puzzle 'id'"),
    ({"id": "maze-7", "answer": "R"}, r"answers.jsonl:2: id: 'maze-7' is not a puzzle id"),
    ({"id": "jigsaw-easy-s0-0000", "answer": "R"}, r"answers.jsonl:2: id: puzzle 'jigsaw-easy-s0-0000' is not in"),
    ({"id": "maze-easy-s0-0099", "answer": "R"}, r"answers.jsonl:2: id: .* \(maze easy, 5 per seed\)"),
    ({"id": "maze-easy-s0-0001", "answer": 3}, r"answers.jsonl:2: answer: 'answer' must be the model's text"),
    ({"id": "maze-easy-s0-0001", "answer": "R", "score": "high"}, r"answers.jsonl:2: score: 'score' must be"),
    ({"id": "maze-easy-s0-0001", "answer": "R", "sample": -1}, r"answers.jsonl:2: sample: sample must be"),
    ({"id": "maze-easy-s0-0000", "answer": "R"}, r"jsonl:2: sample: puzzle 'maze-easy-s0-0000' has sample 0 tw"),
    ({"id": "maze-easy-s0-0001", "answer": "R", "images": ["gone.png"]}, r"answers.jsonl:2: images: intermediate"),
    ({"id": "maze-easy-s0-0001", "answer": "R", "model": "x"}, r"answers.jsonl:2: model: unknown key 'model'"),
])
def test_mistakes_name_the_file_and_line(tmp_path, line, message):
    _write(tmp_path / "answers.jsonl", [{"id": "maze-easy-s0-0000", "answer": "R"}, line])
    with pytest.raises(DataError, match=message):
        read_answers(tmp_path / "answers.jsonl", "maze", "easy", 5)


SUITE = """\
schema_version: 1
suite: my_model
task: visual_reasoning.puzzles
defaults: {seeds: [0, 1], timeout: 5m, threads: 1}
datasets:
  maze_easy: {loader: generated, args: {task: maze, difficulty: easy, count: 4, answers_path: answers.jsonl}}
metrics: [accuracy, pass_at_2, best_of_2, answered]
methods:
  mine: {impl: recorded}
  classical: {impl: classical, params: {samples: 2}}
"""


def test_a_users_answers_are_scored_through_a_suite_and_a_broken_file_exits_3(cli, write_suite, tmp_path):
    records = []
    for seed in (0, 1):
        for index in range(4):
            puzzle = generate("maze", "easy", seed, index)
            if (seed, index) == (1, 3):
                continue  # unanswered: wrong, and counted by `answered`
            first = puzzle.answer if index < 2 else "U U"  # seed 0: 2 of 4 right at first
            records += [{"id": puzzle.id, "answer": f"<think>...</think><answer>{first}</answer>", "score": 0.1},
                        {"id": puzzle.id, "answer": f"Answer: {puzzle.answer}", "sample": 1, "score": 0.9}]
    _write(tmp_path / "answers.jsonl", records)
    suite = str(write_suite(SUITE))
    store = tmp_path / "a.sqlite"
    code, _, err = cli("run", suite, "--store", str(store), "--data-root", str(tmp_path), "--executor", "inline",
                       plugin=False)
    assert code == 0, err
    code, _, err = cli("export", "--suite", suite, "--store", str(store), "--format", "csv", "--out",
                       str(tmp_path / "r.csv"), plugin=False)
    assert code == 0, err
    import pandas as pd

    runs = pd.read_csv(tmp_path / "r.csv").set_index(["method", "seed"])
    assert runs.loc[("mine", 0), "metric.accuracy"] == 50.0 and runs.loc[("mine", 0), "metric.pass_at_2"] == 100.0
    assert runs.loc[("mine", 0), "metric.best_of_2"] == 100.0 and runs.loc[("mine", 1), "metric.answered"] == 75.0
    assert runs.loc[("classical", 1), "metric.accuracy"] == 100.0
    _write(tmp_path / "answers.jsonl", [*records[:3], {"id": "maze-easy-s0-0003"}])
    code, _, err = cli("run", suite, "--store", str(tmp_path / "b.sqlite"), "--data-root", str(tmp_path),
                       plugin=False)
    assert code == 3 and f"{tmp_path / 'answers.jsonl'}:4: answer: 'answer' must be" in err and "Traceback" not in err


def test_the_local_vlm_path_is_skipped_without_a_model_and_refuses_a_folder_that_is_no_model(tmp_path, capsys):

    from methods.visual_reasoning.hf_vlm import main

    index = export(PuzzleSource("search", "easy", 2), [0], tmp_path)
    assert main(["--puzzles", str(index), "--out", str(tmp_path / "a.jsonl")]) == 0
    assert "skipped: no local vision-language model" in capsys.readouterr().err
    assert not (tmp_path / "a.jsonl").exists()
    assert main(["--model", str(tmp_path), "--puzzles", str(index), "--out", str(tmp_path / "a.jsonl")]) == 3
    assert "is not a local model folder (no config.json)" in capsys.readouterr().err


def test_a_vlms_answers_become_a_jsonl_the_recorded_method_reads(tmp_path):
    from methods.visual_reasoning.hf_vlm import answer_puzzles

    index = export(PuzzleSource("search", "easy", 3), [0], tmp_path)
    seen = []

    def fake_model(image, prompt, sample):  # noqa: ANN001, ANN202 - a stand-in for a loaded model
        seen.append((image.is_file(), "Which quadrant" in prompt, sample))
        return ("<answer>B</answer>", -0.5 if sample else -0.1)

    _write(tmp_path / "answers.jsonl", list(answer_puzzles(fake_model, index, samples=2)))
    recorded = read_answers(tmp_path / "answers.jsonl", "search", "easy", 3)
    assert len(recorded.by_puzzle) == 3 and [a.score for a in recorded.by_puzzle["search-easy-s0-0000"]] == [-0.1, -0.5]
    assert seen[:2] == [(True, True, False), (True, True, True)]
