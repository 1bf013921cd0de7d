"""The miniature interleaved reasoner's sequences (issue 56): what each variant is trained on, and how it answers
by rolling out its own tokens (`rollout`), through any `Decoder` (the transformer in `reasoner_model`, or a stand-in
in the tests). How a task is solved step by step is its `scripts.Script`.

A sequence is one picture as 64 patch tokens (`patches`), then words of the task's closed vocabulary
(`vocabulary`); the prompt is `<bos>` and the question's words (a chart's asked bar, a search's target). Per variant:

- `oneshot`: the puzzle's picture, the prompt, `<answer>`, the answer's words, `<eos>`.
- `text`: the puzzle's picture, the prompt, `<think>`, the script's text-only chain (per edit, the edit and the
  text thought on the state it reaches), `<answer>`, the answer's words, `<eos>`: a text-only chain of thought.
- `visual`: one sequence per step: the visual thought after the edits so far (`thoughts.thought`), the prompt,
  the next edit or the final word.
- `interleaved`: as `visual`, with the text thought on the pictured state before the edit (a maze's agent cell, a
  chart's tens, whether a zoom shows the target). At test time the model writes it itself; only its own words and
  the pictures its own edits draw are fed back.

The loss is on the words after each variant's prompt; ThinkMorph's second term (a flow-matching loss on generated
image latents) has no counterpart: the model emits a discrete edit, and the family's renderer draws the picture it
sees next.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Literal, Protocol

import numpy as np

from methods.visual_reasoning.puzzle import Puzzle
from methods.visual_reasoning.scripts import SCRIPTS
from methods.visual_reasoning.thoughts import thought

Variant = Literal["oneshot", "text", "visual", "interleaved"]
VARIANTS: tuple[Variant, ...] = ("oneshot", "text", "visual", "interleaved")
STEPWISE: tuple[Variant, ...] = ("visual", "interleaved")  # one sequence per step, on the latest visual thought
SPECIALS = ("<pad>", "<bos>", "<think>", "<answer>", "<eos>")
PAD, BOS, THINK, ANSWER, EOS = range(len(SPECIALS))
OPENS: dict[Variant, tuple[str, ...]] = {"oneshot": ("<answer>",), "text": ("<think>",), "visual": (),
                                         "interleaved": ()}  # the prompt's last words, after the question
SIDE, PATCH = 64, 8  # a picture is resized to SIDE x SIDE and cut into PATCH x PATCH patches
PATCHES, PATCH_VALUES = (SIDE // PATCH) ** 2, PATCH * PATCH * 3


@cache
def vocabulary(kind: str) -> tuple[str, ...]:
    """A task's words: the special tokens, then its script's words."""
    return (*SPECIALS, *SCRIPTS[kind].words)


@cache
def token_ids(kind: str) -> dict[str, int]:
    return {word: index for index, word in enumerate(vocabulary(kind))}


def prompt(puzzle: Puzzle, variant: Variant) -> list[str]:
    """The words every sequence of `variant` on `puzzle` starts with (no loss on them)."""
    return ["<bos>", *SCRIPTS[puzzle.kind].question(puzzle), *OPENS[variant]]


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


def traces(puzzle: Puzzle, variant: Variant) -> list[Sequence]:
    """The training sequences of a labelled puzzle under `variant`, from its script's true steps."""
    script, ids = SCRIPTS[puzzle.kind], token_ids(puzzle.kind)
    opening = prompt(puzzle, variant)
    if variant in STEPWISE:
        edits, final = script.steps(puzzle), script.final(puzzle)
        found = []
        for k, word in enumerate([*edits, *([final] if final else [])]):
            said = script.said(puzzle, edits[:k]) if variant == "interleaved" else []
            words = opening + said + [word]
            found.append(Sequence(patches(thought(puzzle, edits[:k])), tuple(ids[w] for w in words), len(opening)))
        return found
    chain = script.chain(puzzle) + ["<answer>"] if variant == "text" else []
    words = opening + chain + script.answer_words(puzzle) + ["<eos>"]
    return [Sequence(patches(puzzle.image), tuple(ids[w] for w in words), len(opening))]


class Decoder(Protocol):
    """Next-token log-probabilities for a batch of sequences decoded in lockstep."""

    def begin(self, pictures: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        """Start sequences (pictures (N, PATCHES, PATCH_VALUES) uint8, tokens (N, T)); (N, vocabulary size)
        log-probabilities of each one's next token."""

    def extend(self, tokens: np.ndarray) -> np.ndarray:
        """Append one token (N,) to each sequence begun; the log-probabilities of the next."""


@dataclass
class Walker:
    """One answer being drawn: sample 0 is greedy, the others sampled."""

    puzzle: Puzzle
    sample: int
    edits: list[str] = field(default_factory=list)
    answer: str = "none"
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


def rollout(decoder: Decoder, puzzles: tuple[Puzzle, ...], variant: Variant, samples: int, temperature: float,
            rng: np.random.Generator) -> dict[str, list[tuple[str, float, int]]]:
    """(answer text, score = the log-probability of every token the model wrote, pictures shown) per puzzle id,
    `samples` per puzzle, the puzzles all of one task. The decoder sees each variant's fixed prompt, the tokens it
    chose, and the pictures its own edits draw; never a puzzle's answer."""
    walkers = [Walker(p, k) for p in puzzles for k in range(samples)]
    if variant in STEPWISE:
        _walk(decoder, walkers, variant, temperature, rng)
    else:
        _write(decoder, walkers, variant, temperature, rng)
    found: dict[str, list[tuple[str, float, int]]] = {p.id: [] for p in puzzles}
    for w in walkers:
        found[w.puzzle.id].append(("Answer: " + w.answer, w.score, w.pictures))
    return found


def _ids(walkers: list[Walker], variant: Variant) -> np.ndarray:
    ids = token_ids(walkers[0].puzzle.kind)
    return np.array([[ids[word] for word in prompt(w.puzzle, variant)] for w in walkers])


def _write(decoder: Decoder, walkers: list[Walker], variant: Variant, temperature: float,
           rng: np.random.Generator) -> None:
    """One-shot and text chains: each walker writes from its prompt until `<eos>` or a length cap; its answer is
    read from the words after its last `<answer>`."""
    script, words_of = SCRIPTS[walkers[0].puzzle.kind], vocabulary(walkers[0].puzzle.kind)
    pictures = np.stack([patches(w.puzzle.image) for w in walkers])
    cap = max(script.limit(w.puzzle) for w in walkers) * (4 if variant == "text" else 1) + 2
    log_p = decoder.begin(pictures, _ids(walkers, variant))
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
        words = [words_of[t] for t in tokens]
        if variant == "text":
            words = words[len(words) - words[::-1].index("<answer>"):] if "<answer>" in words else []
        walker.answer = script.read(walker.puzzle, words)


def _walk(decoder: Decoder, walkers: list[Walker], variant: Variant, temperature: float,
          rng: np.random.Generator) -> None:
    """Visual and interleaved: per step each walker sees the picture its edits so far draw, writes its text thought
    (interleaved) and a word. A final word ends its walk with that answer; an edit is made, and the walk goes on
    unless the edit is impossible or the edits reach the script's limit (then, where the answer is a final word,
    the walk has one more step to say it); any other word ends the walk."""
    script, words_of = SCRIPTS[walkers[0].puzzle.kind], vocabulary(walkers[0].puzzle.kind)
    live = list(walkers)
    while live:
        pictures = np.stack([patches(thought(w.puzzle, w.edits)) for w in live])
        log_p = decoder.begin(pictures, _ids(live, variant))
        for _ in range(script.speaks(len(live[0].edits)) if variant == "interleaved" else 0):
            log_p = decoder.extend(_choose(log_p, live, temperature, rng))
        chosen = _choose(log_p, live, temperature, rng)
        still = []
        for walker, token in zip(live, chosen, strict=True):
            word = words_of[token]
            final = word if word in script.finals else None
            if word in script.edits:
                walker.edits.append(word)
            walker.answer = script.answer(walker.puzzle, walker.edits, final)
            if word not in script.edits or not script.legal(walker.puzzle, walker.edits):
                continue
            over = len(walker.edits) - script.limit(walker.puzzle)
            if over >= (0 if script.answer_is_edits else 1):
                continue
            walker.pictures += 1
            still.append(walker)
        live = still
