"""How the miniature reasoner (`reasoner`) solves each task step by step: a task's `Script` names its words, the
true steps of a labelled puzzle (its training traces), the text thought on each state, and how a walk's edits and
final word become an answer. The picture of each state is `thoughts.thought`.

| task | question words | an edit (one a step) | text thought on a state | final word | answer |
|---|---|---|---|---|---|
| maze | - | a move `U D L R` | the agent's cell `r c` | `<eos>` | the moves |
| jigsaw | - | `l` + the board location of the next position's tile | the position to fill, `p` | - | the board |
| chart | the asked bar `bX` | refocus on a bar `bX` | after it, the value's tens `d` | the value `vNN` | the value |
| search | the target's colour, shape | zoom on a quadrant `zA`..`zD` | after it, `yes` / `no` | a letter | it |

A text-only chain writes, per edit, the edit and the text thought on the state it reaches (a jigsaw's chain names
the tiles by their shuffled numbers, `p` + position then `t` + tile, since no board is drawn for it). The true steps
follow the stored answer: the shortest path; the placement in reading order; one refocus on the asked bar; zooms
into the quadrants in option order until the target's. The text thoughts of a training trace may read the truth
(the cell reached, the value's tens, whether the target is in view); at test time the model writes its own.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from methods.visual_reasoning.generators.chart import STEP, TOP
from methods.visual_reasoning.generators.jigsaw import GRID
from methods.visual_reasoning.generators.maze import MOVES
from methods.visual_reasoning.generators.search import COLOURS, LETTERS, SHAPES
from methods.visual_reasoning.puzzle import Puzzle
from methods.visual_reasoning.thoughts import jigsaw_board, maze_cells

MAX_GRID = 8  # the largest maze side
MAX_TILES = max(GRID.values()) ** 2
MAX_BARS = 10


class Script(ABC):
    """One task's steps; the defaults are those of a task whose answer is a final word after its edits."""

    words: ClassVar[tuple[str, ...]]  # the task's words, after the shared special tokens
    edits: ClassVar[frozenset[str]]  # the words that edit the picture
    finals: ClassVar[frozenset[str]]  # the words that end a walk with its answer
    answer_is_edits: ClassVar[bool] = False  # the edits are the answer: a walk ends at its limit

    def question(self, puzzle: Puzzle) -> list[str]:
        """The prompt's facts as words, after `<bos>` in every variant."""
        return []

    @abstractmethod
    def steps(self, puzzle: Puzzle) -> list[str]:
        """The true edits of a labelled puzzle."""

    @abstractmethod
    def final(self, puzzle: Puzzle) -> str | None:
        """The true final word (None where the walk ends at its limit)."""

    @abstractmethod
    def said(self, puzzle: Puzzle, edits: Sequence[str]) -> list[str]:
        """The true text thought on the state after `edits` (`speaks(len(edits))` words)."""

    def speaks(self, done: int) -> int:
        """How many words the interleaved model writes on the state after `done` edits, before its next word."""
        return 0 if done == 0 else 1

    def chain(self, puzzle: Puzzle) -> list[str]:
        """The text-only chain of thought: each true edit and the text thought on the state it reaches."""
        edits = self.steps(puzzle)
        return [w for k in range(1, len(edits) + 1) for w in [edits[k - 1], *self.said(puzzle, edits[:k])]]

    def answer_words(self, puzzle: Puzzle) -> list[str]:
        """The answer as the one-shot and text-chain variants write it after `<answer>`."""
        final = self.final(puzzle)
        return [final] if final else []

    def legal(self, puzzle: Puzzle, edits: Sequence[str]) -> bool:
        """Whether the last of `edits` is possible (a walk stops after an impossible one)."""
        return True

    @abstractmethod
    def limit(self, puzzle: Puzzle) -> int:
        """The most edits a walk makes."""

    def answer(self, puzzle: Puzzle, edits: Sequence[str], final: str | None) -> str:
        """The answer text after 'Answer: ' of a walk that made `edits` and ended on `final`."""
        return self.read(puzzle, [final] if final else [])

    def read(self, puzzle: Puzzle, words: Sequence[str]) -> str:
        """The answer text after 'Answer: ' from the words written after `<answer>`."""
        found = [w for w in words if w in self.finals]
        return found[0][1:] if found else "none"


class MazeScript(Script):
    words = (*MOVES, *(f"r{i}" for i in range(MAX_GRID)), *(f"c{i}" for i in range(MAX_GRID)))
    edits = frozenset(MOVES)
    finals = frozenset({"<eos>"})
    answer_is_edits = True

    def steps(self, puzzle: Puzzle) -> list[str]:
        return puzzle.answer.split()

    def final(self, puzzle: Puzzle) -> str | None:
        return "<eos>"

    def said(self, puzzle: Puzzle, edits: Sequence[str]) -> list[str]:
        row, col = maze_cells(puzzle, edits)[-1]
        return [f"r{row}", f"c{col}"]

    def speaks(self, done: int) -> int:
        return 2

    def answer_words(self, puzzle: Puzzle) -> list[str]:
        return self.steps(puzzle)

    def legal(self, puzzle: Puzzle, edits: Sequence[str]) -> bool:
        return len(maze_cells(puzzle, edits)) > len(edits)  # still on the map

    def limit(self, puzzle: Puzzle) -> int:
        return 3 * int(puzzle.query["grid"])  # as the CNN's rollout

    def answer(self, puzzle: Puzzle, edits: Sequence[str], final: str | None) -> str:
        return self.read(puzzle, edits)

    def read(self, puzzle: Puzzle, words: Sequence[str]) -> str:
        return " ".join(w for w in words if w in MOVES) or "none"


class JigsawScript(Script):
    words = (*(f"l{i}" for i in range(MAX_TILES)), *(f"p{i}" for i in range(MAX_TILES)),
             *(f"t{i}" for i in range(MAX_TILES)))
    edits = frozenset(f"l{i}" for i in range(MAX_TILES))
    finals = frozenset()
    answer_is_edits = True

    def steps(self, puzzle: Puzzle) -> list[str]:
        placement = [int(t) for t in puzzle.answer.split()]
        board, found = list(range(len(placement))), []
        for k, tile in enumerate(placement):
            location = board.index(tile)
            board[k], board[location] = board[location], board[k]
            found.append(f"l{location}")
        return found

    def final(self, puzzle: Puzzle) -> str | None:
        return None

    def said(self, puzzle: Puzzle, edits: Sequence[str]) -> list[str]:
        return [f"p{len(edits)}"]

    def speaks(self, done: int) -> int:
        return 1

    def chain(self, puzzle: Puzzle) -> list[str]:
        return [w for k, tile in enumerate(puzzle.answer.split()) for w in (f"p{k}", f"t{tile}")]

    def answer_words(self, puzzle: Puzzle) -> list[str]:
        return [f"t{tile}" for tile in puzzle.answer.split()]

    def legal(self, puzzle: Puzzle, edits: Sequence[str]) -> bool:
        return len(edits) - 1 <= int(edits[-1][1:]) < self.limit(puzzle)  # an unplaced tile on the board

    def limit(self, puzzle: Puzzle) -> int:
        return int(puzzle.query["grid"]) ** 2

    def answer(self, puzzle: Puzzle, edits: Sequence[str], final: str | None) -> str:
        return " ".join(map(str, jigsaw_board(edits, self.limit(puzzle))))

    def read(self, puzzle: Puzzle, words: Sequence[str]) -> str:
        return " ".join(w[1:] for w in words if w.startswith("t")) or "none"


class ChartScript(Script):
    bars = tuple(f"b{chr(ord('A') + k)}" for k in range(MAX_BARS))
    values = tuple(f"v{v}" for v in range(STEP, TOP, STEP))
    words = (*bars, *(f"d{k}" for k in range(TOP // 10)), *values)
    edits = frozenset(bars)
    finals = frozenset(values)

    def question(self, puzzle: Puzzle) -> list[str]:
        return [self.bars[puzzle.query["bar"]]]

    def steps(self, puzzle: Puzzle) -> list[str]:
        return self.question(puzzle)

    def final(self, puzzle: Puzzle) -> str | None:
        return f"v{puzzle.answer}"

    def said(self, puzzle: Puzzle, edits: Sequence[str]) -> list[str]:
        return [f"d{int(puzzle.answer) // 10}"] if edits else []

    def legal(self, puzzle: Puzzle, edits: Sequence[str]) -> bool:
        return self.bars.index(edits[-1]) < puzzle.query["bars"]

    def limit(self, puzzle: Puzzle) -> int:
        return 1


class SearchScript(Script):
    zooms = tuple(f"z{letter}" for letter in LETTERS)
    words = (*COLOURS, *SHAPES, *zooms, "yes", "no", *LETTERS)
    edits = frozenset(zooms)
    finals = frozenset(LETTERS)

    def question(self, puzzle: Puzzle) -> list[str]:
        return [puzzle.query["colour"], puzzle.query["shape"]]

    def steps(self, puzzle: Puzzle) -> list[str]:
        return list(self.zooms[:LETTERS.index(puzzle.answer) + 1])

    def final(self, puzzle: Puzzle) -> str | None:
        return puzzle.answer

    def said(self, puzzle: Puzzle, edits: Sequence[str]) -> list[str]:
        return (["yes" if edits[-1][1:] == puzzle.answer else "no"]) if edits else []

    def limit(self, puzzle: Puzzle) -> int:
        return len(LETTERS)

    def read(self, puzzle: Puzzle, words: Sequence[str]) -> str:
        found = [w for w in words if w in self.finals]
        return found[0] if found else "none"


SCRIPTS: dict[str, Script] = {"maze": MazeScript(), "jigsaw": JigsawScript(), "chart": ChartScript(),
                              "search": SearchScript()}
