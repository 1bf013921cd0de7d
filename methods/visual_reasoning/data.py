"""The generated puzzle sets: a dataset names a task and a difficulty; each seed of a suite generates its own
`count` test puzzles, so seeds are independent samples of the task, and the CNN's training puzzles come from a
separate stream of the same generator."""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from harness import DataError
from harness.loader_arguments import whole_number
from methods.visual_reasoning.puzzle import (DIFFICULTIES, TASKS, TEST_STREAM, Difficulty, Puzzle, TaskKind,
                                             puzzle_id, puzzle_rng)


@dataclass(frozen=True)
class PuzzleSource:
    """What a loader returns: which puzzles to generate."""

    kind: TaskKind
    difficulty: Difficulty
    count: int


def generate(kind: str, difficulty: str, seed: int, index: int, stream: int = TEST_STREAM) -> Puzzle:
    """Puzzle `index` of a seed: the same puzzle wherever it is generated (its id names all of this)."""
    from methods.visual_reasoning.generators import chart, jigsaw, maze, search

    module = {"jigsaw": jigsaw, "maze": maze, "search": search, "chart": chart}[kind]
    return module.generate(puzzle_rng(kind, difficulty, seed, index, stream), cast(Difficulty, difficulty),
                           puzzle_id(kind, difficulty, seed, index, stream))


def puzzles(source: PuzzleSource, seed: int, stream: int = TEST_STREAM, count: int | None = None) -> list[Puzzle]:
    return [generate(source.kind, source.difficulty, seed, i, stream) for i in range(count or source.count)]


def generated(task: str, difficulty: str, count: int = 50) -> PuzzleSource:
    """A generated puzzle set of `task` (jigsaw, maze, search, chart) at `difficulty` (easy, medium, hard),
    `count` puzzles per seed."""
    if task not in TASKS:
        raise DataError(f"no puzzle task {task!r}; choose one of {', '.join(TASKS)}", field="args.task")
    if difficulty not in DIFFICULTIES:
        raise DataError(f"no difficulty {difficulty!r}; choose one of {', '.join(DIFFICULTIES)}",
                        field="args.difficulty")
    return PuzzleSource(task, difficulty, whole_number(count, "args.count"))
