"""The reasoner on jigsaws, charts and searches (issue 56): each task's visual thought shows the state its edits
reach and only what a solver may see, its script's true steps answer the puzzle correctly in every variant's form,
and a rollout ends and answers by the script's rules."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from methods.visual_reasoning.data import generate
from methods.visual_reasoning.generators.chart import bar_columns
from methods.visual_reasoning.generators.jigsaw import assembled, tiles_of
from methods.visual_reasoning.generators.search import CANVAS, COLOURS, shape_mask
from methods.visual_reasoning.grading import grade
from methods.visual_reasoning.puzzle import TRAIN_STREAM, Puzzle
from methods.visual_reasoning.reasoner import STEPWISE, VARIANTS, patches, rollout, token_ids, traces, vocabulary
from methods.visual_reasoning.scripts import SCRIPTS
from methods.visual_reasoning.thoughts import AGENT, BORDER, CURSOR, MARGIN, jigsaw_board, thought

LEVELS = ("easy", "medium", "hard")


def puzzles(kind: str, level: str, count: int = 6, stream: int = TRAIN_STREAM) -> list[Puzzle]:
    return [generate(kind, level, 0, i, stream) for i in range(count)]


def hidden(puzzle: Puzzle) -> Puzzle:
    return replace(puzzle, answer="", truth={})


@pytest.mark.parametrize("level", LEVELS)
def test_a_jigsaw_thought_places_the_true_tiles_in_reading_order_and_marks_the_next_position(level):
    for puzzle in puzzles("jigsaw", level):
        grid, steps = puzzle.query["grid"], SCRIPTS["jigsaw"].steps(puzzle)
        tiles, tile = tiles_of(puzzle.image, grid), puzzle.image.shape[0] // grid
        truth = tiles[puzzle.truth["placement"]]
        for k in range(len(steps) + 1):
            board = jigsaw_board(steps[:k], grid * grid)
            assert sorted(board) == list(range(grid * grid)) and (tiles[board][:k] == truth[:k]).all()
            image = thought(hidden(puzzle), steps[:k])
            marked = (image == AGENT).all(axis=2)
            if k < len(steps):  # the cursor: a CURSOR-sided square inside position k's tile, nowhere else
                rows, cols = np.nonzero(marked)
                assert marked.sum() == CURSOR ** 2
                assert {(r // tile) * grid + c // tile for r, c in zip(rows, cols, strict=True)} == {k}
            assert (image[~marked] == assembled(tiles[board], grid)[~marked]).all()
        assert (thought(puzzle, steps) == assembled(truth, grid)).all()  # complete: the picture, no cursor


@pytest.mark.parametrize("level", LEVELS)
def test_a_chart_refocus_keeps_the_axis_and_the_chosen_bar_only(level):
    for puzzle in puzzles("chart", level):
        spine, columns = bar_columns(puzzle.query["bars"])
        asked = puzzle.query["bar"]
        first, last = columns[asked]
        image = thought(hidden(puzzle), [f"b{chr(ord('A') + asked)}"])
        assert image.shape == (puzzle.image.shape[0], spine + MARGIN + last - first + 2 * MARGIN, 3)
        assert (image[:, :spine + MARGIN] == puzzle.image[:, :spine + MARGIN]).all()
        bar = image[:, spine + MARGIN:]
        assert (bar == puzzle.image[:, first - MARGIN:last + MARGIN]).all()
        saturated = (bar.max(axis=2).astype(int) - bar.min(axis=2)) > 40
        height = saturated[:, bar.shape[1] // 2].sum()  # the kept bar: 105 pixels span the axis's 0-100
        assert abs(height - 1.05 * float(puzzle.answer)) <= 2
    assert (thought(puzzle, []) == puzzle.image).all()


@pytest.mark.parametrize("level", LEVELS)
def test_a_search_zoom_shows_its_quadrant_framed_on_the_scene_s_border_and_the_target_only_in_its_own(level):
    half = CANVAS // 2
    for puzzle in puzzles("search", level):
        colour = np.array(COLOURS[puzzle.query["colour"]])
        for quadrant, letter in enumerate("ABCD"):
            view = thought(hidden(puzzle), [f"z{letter}"])
            lower, right = divmod(quadrant, 2)
            crop = puzzle.image[half * lower:half * (lower + 1), half * right:half * (right + 1)]
            outer_row, outer_col = (-1 if lower else 0), (-1 if right else 0)
            assert (view[outer_row] == BORDER).all() and (view[:, outer_col] == BORDER).all()
            inner = np.ones(view.shape[:2], dtype=bool)
            inner[outer_row, :] = inner[:, outer_col] = False
            assert (view[inner] == crop[inner]).all()  # the rest is the quadrant at full resolution
            if letter == puzzle.answer:  # a box of the target's colour and shape lies wholly in its quadrant
                shown = (view == colour).all(axis=2)
                assert shown.sum() >= shape_mask(puzzle.query["shape"], 10, 10).sum()


@pytest.mark.parametrize("kind", ["maze", "jigsaw", "chart", "search"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_true_steps_answer_correctly_in_every_variant_s_form(kind, level):
    script = SCRIPTS[kind]
    for puzzle in puzzles(kind, level, 4):
        edits, final = script.steps(puzzle), script.final(puzzle)
        assert all(script.legal(puzzle, edits[:k]) for k in range(1, len(edits) + 1))
        assert len(edits) <= script.limit(puzzle)
        assert grade(puzzle, "Answer: " + script.answer(puzzle, edits, final)).correct
        assert grade(puzzle, "Answer: " + script.read(puzzle, script.answer_words(puzzle))).correct
        for k in range(len(edits) + 1):
            assert len(script.said(puzzle, edits[:k])) == script.speaks(k)
        assert set(script.chain(puzzle) + script.answer_words(puzzle)) <= set(vocabulary(kind))
        for variant in VARIANTS:
            for sequence in traces(puzzle, variant):
                assert max(sequence.tokens) < len(vocabulary(kind))


def test_a_chart_s_traces_refocus_then_read_and_a_search_s_zoom_until_found():
    chart = puzzles("chart", "hard", 1)[0]
    words = vocabulary("chart")
    bar, value = f"b{chr(ord('A') + chart.query['bar'])}", chart.answer
    said = {v: [[words[t] for t in s.tokens] for s in traces(chart, v)] for v in VARIANTS}
    assert said["oneshot"] == [["<bos>", bar, "<answer>", f"v{value}", "<eos>"]]
    assert said["text"] == [["<bos>", bar, "<think>", bar, f"d{int(value) // 10}", "<answer>", f"v{value}", "<eos>"]]
    assert said["visual"] == [["<bos>", bar, bar], ["<bos>", bar, f"v{value}"]]
    assert said["interleaved"] == [["<bos>", bar, bar], ["<bos>", bar, f"d{int(value) // 10}", f"v{value}"]]
    search = next(p for p in puzzles("search", "medium", 20) if p.answer == "C")
    words = vocabulary("search")
    target = [search.query["colour"], search.query["shape"]]
    steps = [[words[t] for t in s.tokens] for s in traces(search, "interleaved")]
    assert steps == [["<bos>", *target, "zA"], ["<bos>", *target, "no", "zB"], ["<bos>", *target, "no", "zC"],
                     ["<bos>", *target, "yes", "C"]]
    for k, sequence in enumerate(traces(search, "visual")):
        assert (sequence.picture == patches(thought(search, ["zA", "zB", "zC"][:k]))).all()


class FixedDecoder:
    """A stand-in model that writes a fixed script of words of one task's vocabulary."""

    def __init__(self, kind: str, script: list[str]) -> None:
        self.ids, self.size = token_ids(kind), len(vocabulary(kind))
        self.script, self.position = script, 0
        self.begun: list[np.ndarray] = []

    def _next(self, rows: int) -> np.ndarray:
        word = self.script[min(self.position, len(self.script) - 1)]
        self.position += 1
        log_p = np.full((rows, self.size), -10.0)
        log_p[:, self.ids[word]] = 0.0
        return log_p

    def begin(self, pictures: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        self.begun.append(pictures)
        return self._next(len(tokens))

    def extend(self, tokens: np.ndarray) -> np.ndarray:
        return self._next(len(tokens))


@pytest.mark.parametrize("kind, variant, script, answer, pictures", [
    ("chart", "interleaved", ["bC", "d3", "v35"], "35", 1),
    ("chart", "visual", ["bC", "bD"], "none", 1),  # a second refocus where the value was due: no answer
    ("chart", "text", ["bC", "d3", "<answer>", "v35", "<eos>"], "35", 0),
    ("search", "interleaved", ["zA", "no", "zB", "yes", "B"], "B", 2),
    ("search", "visual", ["zA", "zB", "zC", "zD", "zA"], "none", 4),  # past the limit of four zooms
    ("search", "oneshot", ["D", "<eos>"], "D", 0),
    ("jigsaw", "visual", ["l1", "l1", "l3", "l3"], "1 0 3 2", 3),  # the limit: four tiles placed
    ("jigsaw", "interleaved", ["p0", "l1", "p1", "l0"], "0 1 2 3", 1),  # l0 unplaces tile 1 and ends the walk
    ("jigsaw", "text", ["p0", "t2", "<answer>", "t2", "t0", "t1", "t3", "<eos>"], "2 0 1 3", 0),
])
def test_a_rollout_ends_and_answers_by_the_script_s_rules(kind, variant, script, answer, pictures):
    puzzle = hidden(generate(kind, "easy", 0, 0))
    decoder = FixedDecoder(kind, script)
    found = rollout(decoder, (puzzle,), variant, 1, 1.0, np.random.default_rng(0))
    assert found[puzzle.id] == [(f"Answer: {answer}", 0.0, pictures)]  # each word written had log-probability 0
    assert decoder.position == len(script)
    if variant in STEPWISE:
        edits = [w for w in script if w in SCRIPTS[kind].edits]
        for k, shown in enumerate(decoder.begun):
            assert (shown[0] == patches(thought(puzzle, edits[:k]))).all()


@pytest.mark.parametrize("kind", ["jigsaw", "chart", "search"])
def test_each_variant_answers_every_task_through_the_task_s_checks(kind):
    pytest.importorskip("transformers", reason="needs transformers: pip install -e '.[visual-reasoning]'")
    from harness import RunContext
    from harness.method_params import declared_params
    from harness.registry import methods, tasks
    from methods.visual_reasoning.data import PuzzleSource

    task = tasks.get("visual_reasoning.puzzles")()
    instance = task.instance(PuzzleSource(kind, "medium", 3), {}, 0)
    for variant in VARIANTS:
        method = f"visual_reasoning.reasoner_{variant}"
        context = RunContext(seed=0, device="cpu", threads=1)
        output = methods.get(method)(**declared_params(method).tiny).run(instance.inputs, context)
        predictions = task.predictions(instance, output)
        assert task.score(instance, task.checked(instance, predictions), {}) == {}
        assert len(predictions) == 2 * len(instance.truth)
        assert predictions["answer"].str.startswith("Answer: ").all()
        assert context.measurements["train_sequences"].value > 0


def test_a_model_trained_on_every_level_is_trained_once_and_shared_by_the_levels(tmp_path, monkeypatch):
    pytest.importorskip("transformers", reason="needs transformers: pip install -e '.[visual-reasoning]'")
    from harness import RunContext
    from harness.method_params import declared_params
    from methods.visual_reasoning.baselines.reasoner import VisualReasoner
    from methods.visual_reasoning.data import PuzzleSource
    from methods.visual_reasoning.task import VisualPuzzles

    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path))
    tiny = declared_params("visual_reasoning.reasoner_visual").tiny | {"train_on": "task"}
    recorded = []
    for level in LEVELS:
        instance = VisualPuzzles().instance(PuzzleSource("search", level, 2), {}, 0)
        context = RunContext(seed=0, device="cpu", threads=1)
        VisualReasoner(**tiny).run(instance.inputs, context)
        recorded.append(context.measurements["train_sequences"].value)
    (folder,) = [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert folder.name.startswith("reasoner-search-visual-")
    per_level = [sum(len(traces(p, "visual")) for p in puzzles("search", level, tiny["train_puzzles"]))
                 for level in LEVELS]
    assert recorded == [sum(per_level)] * 3  # every level's runs read the one model trained on all three
