"""Generator specifications: every puzzle is solvable and its stored answer is the one the classical solver
reads off the image; puzzles are pure functions of their id; the training stream never repeats a test puzzle."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from methods.visual_reasoning.data import generate
from methods.visual_reasoning.generators.jigsaw import edge_dissimilarity, tiles_of, well_posed
from methods.visual_reasoning.generators.maze import shortest_path, walk
from methods.visual_reasoning.generators.search import CANVAS, COLOURS
from methods.visual_reasoning.grading import grade
from methods.visual_reasoning.puzzle import DIFFICULTIES, TASKS, TRAIN_STREAM, png_bytes
from methods.visual_reasoning.solvers import solve

CASES = [(task, difficulty) for task in TASKS for difficulty in DIFFICULTIES]


@pytest.mark.parametrize(("task", "difficulty"), CASES)
def test_every_puzzle_is_solved_by_the_classical_solver_and_its_stored_answer_is_correct(task, difficulty):
    for seed in range(2):
        for index in range(12):
            puzzle = generate(task, difficulty, seed, index)
            assert grade(puzzle, puzzle.answer).correct, f"{puzzle.id}: the stored answer does not grade correct"
            assert solve(puzzle) == f"Answer: {puzzle.answer}", f"{puzzle.id}: the solver read another answer"


@pytest.mark.parametrize(("task", "difficulty"), CASES)
def test_a_puzzle_is_a_pure_function_of_its_id(task, difficulty):
    first, again = generate(task, difficulty, 3, 5), generate(task, difficulty, 3, 5)
    assert first.id == again.id == f"{task}-{difficulty}-s3-0005"
    np.testing.assert_array_equal(first.image, again.image)
    assert first.answer == again.answer and first.prompt == again.prompt
    assert not np.array_equal(first.image, generate(task, difficulty, 4, 5).image)


@pytest.mark.parametrize("task", TASKS)
def test_training_puzzles_come_from_another_stream_than_any_test_puzzle(task):
    test = {generate(task, "easy", 0, i).image.tobytes() for i in range(20)}
    train = [generate(task, "easy", 0, i, TRAIN_STREAM) for i in range(20)]
    assert all(p.id.startswith("train-") for p in train)
    assert not test & {p.image.tobytes() for p in train}


def test_maze_answers_are_shortest_paths_and_a_path_over_a_hole_is_invalid():
    for index in range(30):
        puzzle = generate("maze", "hard", 0, index)
        truth = puzzle.truth
        assert not truth["holes"][truth["start"]] and not truth["holes"][truth["goal"]]
        assert len(puzzle.answer.split()) == truth["shortest"] == len(shortest_path(truth["holes"], truth["start"],
                                                                                    truth["goal"]))
    holes = np.zeros((3, 3), dtype=bool)
    holes[0, 1] = True
    assert walk(holes, (0, 0), "RR") is None and walk(holes, (0, 0), "L") is None
    assert walk(holes, (0, 0), "DRRU") == (0, 2)


def test_a_jigsaw_is_well_posed_each_true_neighbour_its_tiles_unique_best_edge_match():
    for index in range(10):
        puzzle = generate("jigsaw", "hard", 0, index)
        grid = puzzle.query["grid"]
        picture = tiles_of(puzzle.image, grid)[puzzle.truth["placement"]]  # the tiles back in picture order
        assert well_posed(picture, grid)
        right, _ = edge_dissimilarity(picture)
        assert right[0, 1] < np.delete(right[0], [0, 1]).min()


def test_a_search_target_is_unique_and_wholly_inside_its_quadrant():
    for index in range(20):
        puzzle = generate("search", "hard", 0, index)
        colour = np.array(COLOURS[puzzle.query["colour"]])
        assert (puzzle.image == colour).all(axis=2).any()
        assert puzzle.answer in "ABCD" and puzzle.image.shape == (CANVAS, CANVAS, 3)


def test_chart_values_are_multiples_of_five_on_the_stated_scale():
    for index in range(10):
        puzzle = generate("chart", "medium", 0, index)
        assert int(puzzle.answer) % 5 == 0 and 5 <= int(puzzle.answer) <= 95
        assert f"bar {chr(ord('A') + puzzle.query['bar'])}?" in puzzle.prompt


@pytest.mark.parametrize("task", TASKS)
def test_pngs_are_small_and_decode_to_the_same_pixels(task):
    puzzle = generate(task, "hard", 0, 0)
    data = png_bytes(puzzle.image)
    assert len(data) < 20_000
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), puzzle.image)
