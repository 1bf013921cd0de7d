"""The candidate teachers GRACE ranks: tiny LM teachers sampled at a temperature, and synthetic teachers
written from the generator's reference steps with a controlled defect.

The paper's pool is 15 instruction-tuned LLMs sampled at 0.3-1.0 (spec: shared/papers/grace.md); offline on
CPU we follow the spec's reproduction plan: (a) tiny GPT-2/Llama teachers (`tiny_model.prepare`, trained on
another skill mix or size than the student) sampled at several temperatures, for the inverted-U study, and
(b) synthetic teachers whose defect is known exactly:

- `cot`: the reference chain of thought ("12 + 7 = 19. 19 * 3 = 57. The final answer is 57.");
- `answer_only`: "The final answer is 57." and nothing else;
- `noisy`: each step's result is wrong with probability `noise` (off by 1-9), and the error is carried
  forward: the next step starts from the wrong value and computes correctly from it;
- `wrong_format`: the reference steps without the final-answer sentence;
- `random`: as many steps as the reference, every number random in 0..99, and a random final answer.

Synthetic teachers ignore `temperature`, but like a teacher sampled at a temperature they word their m
responses differently: each response draws one of the generator's three step styles (`cot`, `noisy`,
`wrong_format`) or of three final-answer sentences (`answer_only`). Identical responses would leave GRACE
with n distinct gradients for n*m rows: with n*0.9 < d the training covariance is rank-deficient and the
held-out prompts fall on its smoothed null space (the first math_grace run scored these teachers
1,100-30,000 against 127-564 for the others; the paper's teachers are all sampled at T > 0).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from methods.math_reasoning import generator
from methods.math_reasoning.generator import FINAL, SYMBOLS, Step
from methods.math_reasoning.problems import Problem

SYNTHETIC_KINDS = ("cot", "answer_only", "noisy", "wrong_format", "random")
KINDS = (*SYNTHETIC_KINDS, "lm")


@dataclass(frozen=True)
class Teacher:
    """One candidate: a synthetic kind, or an LM folder sampled at `temperature` (0 = greedy)."""

    name: str
    kind: str
    temperature: float | None = None  # LM teachers only
    noise: float = 0.0  # `noisy` only: the probability that a step's result is wrong
    model_dir: Path | None = None  # LM teachers only
    max_new_tokens: int = 96

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown teacher kind {self.kind!r}; known: {', '.join(KINDS)}")
        if self.temperature is not None and self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError(f"noise must lie in [0, 1], got {self.noise}")
        if (self.kind == "lm") != (self.model_dir is not None):
            raise ValueError("an LM teacher needs a model folder, and only an LM teacher takes one")

    def recipe(self) -> dict:
        """What the teacher's responses depend on (not its display name), for cache keys."""
        weights = None if self.model_dir is None else weights_key(self.model_dir)
        return {"kind": self.kind, "temperature": self.temperature, "noise": self.noise, "weights": weights,
                "max_new_tokens": self.max_new_tokens}


def weights_key(folder: Path) -> list[str]:
    """A model's identity for cache keys: the sha256 of its weight files, wherever its folder lives."""
    from harness.fingerprint import file_sha256

    files = sorted(Path(folder).glob("*.safetensors")) or sorted(Path(folder).glob("*.bin"))
    return [file_sha256(f) for f in files]


def noisy_steps(start: int, steps: Sequence[Step], noise: float, rng: np.random.Generator) -> list[Step]:
    """The chain re-run with each step's result corrupted with probability `noise`, errors carried forward."""
    value, out = start, []
    for step in steps:
        result = _apply(step.skill, value, step.operand)
        if rng.random() < noise:
            result += int(rng.choice([-1, 1])) * int(rng.integers(1, 10))
        out.append(Step(step.skill, step.operand, value, result))
        value = result
    return out


def _apply(skill: str, value: int, operand: int) -> int:
    """The step's operation on any integer (a carried error can leave the generator's 0..99 range)."""
    return {"add": value + operand, "subtract": value - operand, "multiply": value * operand,
            "divide": value // operand, "remainder": value % operand}[skill]


def _random_response(n_steps: int, rng: np.random.Generator) -> str:
    numbers = rng.integers(0, 100, size=(n_steps, 3))
    symbols = list(SYMBOLS.values())
    steps = [f"{a} {symbols[int(rng.integers(len(symbols)))]} {b} = {c}." for a, b, c in numbers]
    return " ".join([*steps, FINAL.format(r=int(rng.integers(0, 100)))])


ANSWER_ONLY = (FINAL, "So the final answer is {r}.", "Therefore, the final answer is {r}.")


def synthetic_response(kind: str, problem: Problem, rng: np.random.Generator, noise: float = 0.0) -> str:
    """One response of a synthetic teacher to a generated chain problem, in a randomly drawn wording."""
    start, steps = generator.parse_chain(problem)
    style = int(rng.integers(len(generator.STEP_STYLES)))
    if kind == "cot":
        return generator.solution_text(steps, style)
    if kind == "answer_only":
        return ANSWER_ONLY[style].format(r=steps[-1].result)
    if kind == "wrong_format":
        return " ".join(s.text(style) for s in steps)
    if kind == "noisy":
        return generator.solution_text(noisy_steps(start, steps, noise, rng), style)
    if kind == "random":
        return _random_response(len(steps), rng)
    raise ValueError(f"{kind!r} is not a synthetic teacher kind; known: {', '.join(SYNTHETIC_KINDS)}")


def answer(teacher: Teacher, problems: Sequence[Problem], m: int, seed: int) -> list[list[str]]:
    """m responses per problem, in order, reproducible from `seed`."""
    if m < 1:
        raise ValueError(f"need at least one response per problem, got m={m}")
    if teacher.model_dir is None:  # a synthetic teacher: only an LM teacher has a folder
        rng = np.random.default_rng(seed)
        return [[synthetic_response(teacher.kind, p, rng, teacher.noise) for _ in range(m)] for p in problems]
    from methods.math_reasoning import tiny_model
    from methods.math_reasoning.generation import Decoding, generate

    model, tokenizer = tiny_model.load(teacher.model_dir)
    questions = [p.question for p in problems for _ in range(m)]
    decoding = Decoding(temperature=teacher.temperature or 0.0, max_new_tokens=teacher.max_new_tokens)
    texts = generate(model, tokenizer, questions, decoding, seed).texts
    return [texts[i * m:(i + 1) * m] for i in range(len(problems))]
