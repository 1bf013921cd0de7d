"""How each task is put to the CNN (`cnn_model`) and its outputs turned into answer texts.

Search: the scene and the asked colour and shape (one-hot) -> the quadrant. Chart: the chart and the asked bar
(one-hot) -> the value, one class per multiple of 5. Jigsaw: each shuffled tile alone -> its picture position,
then the most likely placement that uses every tile once (`scipy.optimize.linear_sum_assignment`). Maze: the map
at 4 pixels per cell and the agent's cell (a fourth channel) -> the next move or stop, rolled out from the start cell.
The first answer is the most likely one; the others are drawn from the softmax at `temperature` (a placement
drawn by Gumbel-perturbed assignment). An answer's score is its log-probability under the model.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import linear_sum_assignment

from methods.visual_reasoning.cnn_model import Examples
from methods.visual_reasoning.generators.chart import BARS, STEP, TOP
from methods.visual_reasoning.generators.jigsaw import tiles_of
from methods.visual_reasoning.generators.maze import MOVES
from methods.visual_reasoning.generators.search import COLOURS, SHAPES
from methods.visual_reasoning.puzzle import Puzzle

SIDE = 64  # scenes and charts are resized to SIDE x SIDE
MAZE_CELL = 4  # pixels per maze cell
Predict = Callable[[Examples], np.ndarray]  # log-probabilities (N, classes)
STOP = len(MOVES)


def resized(image: np.ndarray, side: int = SIDE) -> np.ndarray:
    """(3, side, side) float32 in [0, 1] (Pillow's bilinear resampling)."""
    from PIL import Image

    small = np.asarray(Image.fromarray(image).resize((side, side), Image.Resampling.BILINEAR), dtype=np.float32)
    return small.transpose(2, 0, 1) / 255.0


def classes(puzzle: Puzzle) -> int:
    return {"search": 4, "chart": TOP // STEP - 1, "jigsaw": puzzle.query.get("grid", 0) ** 2,
            "maze": STOP + 1}[puzzle.kind]


def _one_hot(index: int, size: int) -> np.ndarray:
    vector = np.zeros(size, dtype=np.float32)
    vector[index] = 1.0
    return vector


def _condition(puzzle: Puzzle) -> np.ndarray:
    if puzzle.kind == "search":
        return np.concatenate([_one_hot(list(COLOURS).index(puzzle.query["colour"]), len(COLOURS)),
                               _one_hot(SHAPES.index(puzzle.query["shape"]), len(SHAPES))])
    if puzzle.kind == "chart":
        return _one_hot(puzzle.query["bar"], max(BARS.values()))
    return np.zeros(0, dtype=np.float32)


def _maze_input(puzzle: Puzzle, cell: tuple[int, int]) -> np.ndarray:
    """The map at MAZE_CELL pixels per cell (a map has little detail: a quarter of the pixels of SIDE or fewer)
    and the agent's cell as a fourth channel."""
    grid = puzzle.query["grid"]
    here = np.zeros((1, grid * MAZE_CELL, grid * MAZE_CELL), dtype=np.float32)
    here[0, cell[0] * MAZE_CELL:(cell[0] + 1) * MAZE_CELL, cell[1] * MAZE_CELL:(cell[1] + 1) * MAZE_CELL] = 1.0
    return np.concatenate([resized(puzzle.image, grid * MAZE_CELL), here])


def _tiles(puzzle: Puzzle) -> np.ndarray:
    return tiles_of(puzzle.image, puzzle.query["grid"]).transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def training_examples(train: list[Puzzle]) -> Examples:
    """Labelled examples from training puzzles (their truth is the label)."""
    xs: list[np.ndarray] = []
    cs: list[np.ndarray] = []
    ys: list[np.ndarray | list[int]] = []  # labels: one per example, or one per tile of a jigsaw
    for puzzle in train:
        if puzzle.kind in ("search", "chart"):
            xs.append(resized(puzzle.image)[None])
            cs.append(_condition(puzzle)[None])
            label = "ABCD".index(puzzle.answer) if puzzle.kind == "search" else int(puzzle.answer) // STEP - 1
            ys.append([label])
        elif puzzle.kind == "jigsaw":
            shown = np.argsort(puzzle.truth["placement"])  # shown[k]: the position of shuffled tile k
            xs.append(_tiles(puzzle))
            cs.append(np.zeros((len(shown), 0), dtype=np.float32))
            ys.append(shown)
        else:
            cell, steps = puzzle.truth["start"], [*puzzle.answer.split(), None]
            for move in steps:
                xs.append(_maze_input(puzzle, cell)[None])
                cs.append(np.zeros((1, 0), dtype=np.float32))
                ys.append([STOP if move is None else list(MOVES).index(move)])
                if move is not None:
                    cell = (cell[0] + MOVES[move][0], cell[1] + MOVES[move][1])
    return Examples(np.concatenate(xs), np.concatenate(cs), np.concatenate(ys).astype(np.int64))


def _draws(log_p: np.ndarray, samples: int, temperature: float, rng: np.random.Generator) -> np.ndarray:
    """(samples,) class indices: the most likely first, then draws from the tempered softmax."""
    tempered = np.exp((log_p - log_p.max()) / temperature)
    drawn = rng.choice(len(log_p), size=samples - 1, p=tempered / tempered.sum())
    return np.concatenate([[int(np.argmax(log_p))], drawn]).astype(int)


def answers(predict: Predict, puzzles: tuple[Puzzle, ...], samples: int, temperature: float,
            rng: np.random.Generator) -> dict[str, list[tuple[str, float]]]:
    """(text, score) answers per puzzle id."""
    kind = puzzles[0].kind
    if kind == "maze":
        return _maze_answers(predict, puzzles, samples, temperature, rng)
    if kind == "jigsaw":
        return {p.id: _placements(predict(Examples(_tiles(p), np.zeros((len(_tiles(p)), 0), np.float32))),
                                  samples, temperature, rng) for p in puzzles}
    log_p = predict(Examples(np.stack([resized(p.image) for p in puzzles]), np.stack([_condition(p) for p in puzzles])))
    texts = (lambda k: "ABCD"[k]) if kind == "search" else (lambda k: str(STEP * (k + 1)))
    return {p.id: [(f"Answer: {texts(k)}", float(row[k])) for k in _draws(row, samples, temperature, rng)]
            for p, row in zip(puzzles, log_p, strict=True)}


def _placements(log_p: np.ndarray, samples: int, temperature: float,
                rng: np.random.Generator) -> list[tuple[str, float]]:
    """Tile-to-position log-probabilities -> placements: the best assignment, then Gumbel-perturbed ones."""
    found = []
    for k in range(samples):
        noise = 0.0 if k == 0 else temperature * rng.gumbel(size=log_p.shape)
        tiles, positions = linear_sum_assignment(-(log_p / (1.0 if k == 0 else temperature) + noise))
        placement = np.empty(len(tiles), dtype=int)
        placement[positions] = tiles
        found.append(("Answer: " + " ".join(map(str, placement)), float(log_p[tiles, positions].sum())))
    return found


def _maze_answers(predict: Predict, puzzles: tuple[Puzzle, ...], samples: int, temperature: float,
                  rng: np.random.Generator) -> dict[str, list[tuple[str, float]]]:
    """Roll the policy out from each start cell (read from the image), every sample in one batch per step,
    until it stops, leaves the map or has made 3 x grid moves."""
    from methods.visual_reasoning.solvers.maze import read_map

    walkers = [(p, k, read_map(p.image, p.query["grid"])[1]) for p in puzzles for k in range(samples)]
    paths: list[list[str]] = [[] for _ in walkers]
    scores = np.zeros(len(walkers))
    cells = [start for _, _, start in walkers]
    active = list(range(len(walkers)))
    while active:
        log_p = predict(Examples(np.stack([_maze_input(walkers[i][0], cells[i]) for i in active]),
                                 np.zeros((len(active), 0), dtype=np.float32)))
        still = []
        for i, row in zip(active, log_p, strict=True):
            puzzle, sample = walkers[i][0], walkers[i][1]
            choice = _draws(row, 1, temperature, rng)[0] if sample == 0 else _draws(row, 2, temperature, rng)[1]
            scores[i] += row[choice]
            if choice == STOP:
                continue
            move = list(MOVES)[choice]
            paths[i].append(move)
            cell = (cells[i][0] + MOVES[move][0], cells[i][1] + MOVES[move][1])
            grid = puzzle.query["grid"]
            if 0 <= cell[0] < grid and 0 <= cell[1] < grid and len(paths[i]) < 3 * grid:
                cells[i] = cell
                still.append(i)
        active = still
    found: dict[str, list[tuple[str, float]]] = {p.id: [] for p in puzzles}
    for (puzzle, _, _), path, score in zip(walkers, paths, scores, strict=True):
        found[puzzle.id].append(("Answer: " + (" ".join(path) or "none"), float(score)))
    return found
