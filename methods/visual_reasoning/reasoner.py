"""The miniature interleaved reasoner's sequences (issue 56): what each variant is trained on, and how it answers
by rolling out its own tokens (`rollout`), through any `Decoder` (the transformer in `reasoner_model`, or a stand-in
in the tests).

A sequence is one picture as 64 patch tokens (`patches`), then tokens of a closed vocabulary. Per variant, on mazes:

- `oneshot`: the map, then `<bos> <answer>` and the moves, `<eos>`.
- `text`: the map, then `<bos> <think>`, per move `M r c` (the move and the cell it reaches), `<answer>`, the
  moves, `<eos>`: a text-only chain of thought.
- `visual`: one sequence per step: the visual thought after the moves so far (`thoughts.thought`), `<bos>`, the
  next move or `<eos>`.
- `interleaved`: as `visual`, with a text thought before the move: `<bos> r c M`, the agent's cell read off the
  picture. At test time the model writes `r c` itself; only its own tokens and the pictures its own moves draw
  are fed back.

The loss is on the tokens after each variant's prompt (`<bos>`, and `<answer>` or `<think>`); ThinkMorph's second
term (a flow-matching loss on generated image latents) has no counterpart: the model emits a discrete edit, and
the family's renderer draws the picture it sees next.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from methods.visual_reasoning.generators.maze import MOVES
from methods.visual_reasoning.puzzle import Puzzle
from methods.visual_reasoning.thoughts import maze_cells, thought

Variant = Literal["oneshot", "text", "visual", "interleaved"]
VARIANTS: tuple[Variant, ...] = ("oneshot", "text", "visual", "interleaved")
STEPWISE: tuple[Variant, ...] = ("visual", "interleaved")  # one sequence per step, on the latest visual thought
MAX_GRID = 8
VOCAB: tuple[str, ...] = ("<pad>", "<bos>", "<think>", "<answer>", "<eos>", *MOVES,
                          *(f"r{i}" for i in range(MAX_GRID)), *(f"c{i}" for i in range(MAX_GRID)))
TOKEN = {name: index for index, name in enumerate(VOCAB)}
PAD, BOS, EOS = TOKEN["<pad>"], TOKEN["<bos>"], TOKEN["<eos>"]
PROMPT: dict[Variant, tuple[int, ...]] = {"oneshot": (BOS, TOKEN["<answer>"]), "text": (BOS, TOKEN["<think>"]),
                                          "visual": (BOS,), "interleaved": (BOS,)}
SIDE, PATCH = 64, 8  # a picture is resized to SIDE x SIDE and cut into PATCH x PATCH patches
PATCHES, PATCH_VALUES = (SIDE // PATCH) ** 2, PATCH * PATCH * 3


def patches(image: np.ndarray) -> np.ndarray:
    """(PATCHES, PATCH_VALUES) uint8: the picture resized (Pillow's bilinear) and cut into patches in reading
    order, each patch's pixels row by row."""
    from PIL import Image

    small = np.asarray(Image.fromarray(image).resize((SIDE, SIDE), Image.Resampling.BILINEAR), dtype=np.uint8)
    side = SIDE // PATCH
    return np.ascontiguousarray(small.reshape(side, PATCH, side, PATCH, 3).transpose(0, 2, 1, 3, 4)
                                .reshape(PATCHES, PATCH_VALUES))


@dataclass(frozen=True)
class Sequence:
    """One training sequence: a picture's patches and the token ids after it; the loss is on the tokens from
    `prompt` on."""

    picture: np.ndarray
    tokens: tuple[int, ...]
    prompt: int


def _cell_tokens(cell: tuple[int, int]) -> list[str]:
    return [f"r{cell[0]}", f"c{cell[1]}"]


def traces(puzzle: Puzzle, variant: Variant) -> list[Sequence]:
    """The training sequences of a labelled maze under `variant`, from its stored shortest path."""
    if puzzle.kind != "maze":
        raise ValueError(f"the reasoner has traces for maze puzzles only, not {puzzle.kind}")
    moves = puzzle.answer.split()
    cells = maze_cells(puzzle, moves)
    prompt = [VOCAB[t] for t in PROMPT[variant]]
    if variant in STEPWISE:
        found = []
        for k in range(len(moves) + 1):
            said = _cell_tokens(cells[k]) if variant == "interleaved" else []
            words = prompt + said + [moves[k] if k < len(moves) else "<eos>"]
            found.append(Sequence(patches(thought(puzzle, moves[:k])), tuple(TOKEN[w] for w in words), len(prompt)))
        return found
    chain = [w for move, cell in zip(moves, cells[1:], strict=True) for w in [move, *_cell_tokens(cell)]]
    words = prompt + (chain + ["<answer>"] if variant == "text" else []) + moves + ["<eos>"]
    return [Sequence(patches(puzzle.image), tuple(TOKEN[w] for w in words), len(prompt))]


class Decoder(Protocol):
    """Next-token log-probabilities for a batch of sequences decoded in lockstep."""

    def begin(self, pictures: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        """Start sequences (pictures (N, PATCHES, PATCH_VALUES) uint8, tokens (N, T)); (N, len(VOCAB))
        log-probabilities of each one's next token."""

    def extend(self, tokens: np.ndarray) -> np.ndarray:
        """Append one token (N,) to each sequence begun; the log-probabilities of the next."""


@dataclass
class Walker:
    """One answer being drawn: sample 0 is greedy, the others sampled."""

    puzzle: Puzzle
    sample: int
    moves: list[str]
    score: float = 0.0
    pictures: int = 0  # visual thoughts shown after the puzzle's own picture


def _choose(log_p: np.ndarray, walkers: list[Walker], temperature: float, rng: np.random.Generator) -> np.ndarray:
    """Each walker's next token (greedy for sample 0, drawn at `temperature` otherwise), its log-probability added
    to the walker's score."""
    noisy = log_p / temperature + rng.gumbel(size=log_p.shape)
    greedy = np.array([w.sample == 0 for w in walkers])
    chosen = np.where(greedy, log_p.argmax(axis=1), noisy.argmax(axis=1))
    for walker, row, token in zip(walkers, log_p, chosen, strict=True):
        walker.score += float(row[token])
    return chosen


def max_moves(puzzle: Puzzle) -> int:
    """A rollout's cap: three times the grid's side, as the CNN's."""
    return 3 * int(puzzle.query["grid"])


def rollout(decoder: Decoder, puzzles: tuple[Puzzle, ...], variant: Variant, samples: int, temperature: float,
            rng: np.random.Generator) -> dict[str, list[tuple[str, float, int]]]:
    """(answer text, score = the log-probability of every token the model wrote, pictures shown) per puzzle id,
    `samples` per puzzle. The decoder sees each variant's fixed prompt, the tokens it chose, and the pictures its
    own moves draw; never a puzzle's answer."""
    walkers = [Walker(p, k, []) for p in puzzles for k in range(samples)]
    if variant in STEPWISE:
        _walk(decoder, walkers, variant, temperature, rng)
    else:
        _write(decoder, walkers, variant, temperature, rng)
    found: dict[str, list[tuple[str, float, int]]] = {p.id: [] for p in puzzles}
    for w in walkers:
        found[w.puzzle.id].append(("Answer: " + (" ".join(w.moves) or "none"), w.score, w.pictures))
    return found


def _write(decoder: Decoder, walkers: list[Walker], variant: Variant, temperature: float,
           rng: np.random.Generator) -> None:
    """One-shot and text chains: each walker writes from its prompt until `<eos>` or a length cap; its moves are
    those after its last `<answer>`."""
    pictures = np.stack([patches(w.puzzle.image) for w in walkers])
    cap = max(max_moves(w.puzzle) for w in walkers) * (4 if variant == "text" else 1) + 2
    log_p = decoder.begin(pictures, np.array([PROMPT[variant]] * len(walkers)))
    done = np.zeros(len(walkers), dtype=bool)
    written: list[list[int]] = [[] for _ in walkers]
    for _ in range(cap):
        live = [i for i in range(len(walkers)) if not done[i]]
        if not live:
            break
        chosen = _choose(log_p[live], [walkers[i] for i in live], temperature, rng)
        step = np.full(len(walkers), PAD)
        step[live] = chosen
        for i, token in zip(live, chosen, strict=True):
            written[i].append(int(token))
            done[i] = token == EOS
        if not done.all():
            log_p = decoder.extend(step)
    for walker, tokens in zip(walkers, written, strict=True):
        words = [VOCAB[t] for t in tokens]
        if variant == "text":
            words = words[len(words) - words[::-1].index("<answer>"):] if "<answer>" in words else []
        walker.moves = [w for w in words if w in MOVES]


def _walk(decoder: Decoder, walkers: list[Walker], variant: Variant, temperature: float,
          rng: np.random.Generator) -> None:
    """Visual and interleaved: per step each walker sees the picture its moves so far draw, writes its text thought
    (interleaved: two tokens) and a move; it stops at `<eos>` (or any other token), off the map, or at the cap."""
    said = 2 if variant == "interleaved" else 0
    live = list(walkers)
    while live:
        pictures = np.stack([patches(thought(w.puzzle, w.moves)) for w in live])
        log_p = decoder.begin(pictures, np.array([PROMPT[variant]] * len(live)))
        for _ in range(said):
            log_p = decoder.extend(_choose(log_p, live, temperature, rng))
        chosen = _choose(log_p, live, temperature, rng)
        still = []
        for walker, token in zip(live, chosen, strict=True):
            move = VOCAB[token]
            if move not in MOVES:
                continue
            walker.moves.append(move)
            if len(maze_cells(walker.puzzle, walker.moves)) <= len(walker.moves) or \
                    len(walker.moves) >= max_moves(walker.puzzle):
                continue  # off the map, or at the cap
            walker.pictures += 1
            still.append(walker)
        live = still
