"""Skill-labelled arithmetic word problems with step-wise reference solutions, generated from a seed.

STAT needs what the MATH data gives it (a skill label per question, a Skill-Map from skills to training
questions) and one thing it gets from GPT-4o-mini: a judge of which skill a student's solution got wrong.
A generator that writes every step of the reference solution makes that judge programmatic (`teacher.py`),
so we generate rather than use DeepMind's `mathematics-dataset`, whose problems come without steps.

A problem is a chain: a start value and 1-4 operations, each one skill (add, subtract, multiply, divide,
remainder). Its skills are the set of its steps' skills; its level is its number of steps. The
in-distribution sets have 1-3 steps; the out-of-distribution set is the extrapolation split of
`mathematics-dataset` in spirit: longer chains (4 steps) than any in-distribution problem.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from methods.math_reasoning.problems import Problem

SKILLS = ("add", "subtract", "multiply", "divide", "remainder")
PHRASES = {"add": "add {a}", "subtract": "subtract {a}", "multiply": "multiply by {a}",
           "divide": "divide by {a}", "remainder": "take the remainder modulo {a}"}
SYMBOLS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "remainder": "mod"}
# Three ways to write a step: MATH-Augment's three teacher rewrites of each answer, at our scale. The step's
# result is the last number of its sentence in every style, which is what the programmatic teacher reads.
STEP_STYLES = ("{v} {op} {a} = {r}.", "{v} {op} {a} gives {r}.", "Next, {v} {op} {a} is {r}.")
FINAL = "The final answer is {r}."
MAX_VALUE = 99  # two-digit values: arithmetic a 0.4M-parameter model learns in minutes of CPU


@dataclass(frozen=True)
class Step:
    skill: str
    operand: int
    value: int  # before the step
    result: int

    def text(self, style: int = 0) -> str:
        return STEP_STYLES[style].format(v=self.value, op=SYMBOLS[self.skill], a=self.operand, r=self.result)


def _operands(skill: str, value: int) -> list[int]:
    """The operands that keep the chain in 0..MAX_VALUE with exact division (add and subtract: 1..20)."""
    if skill == "add":
        return [a for a in range(1, 21) if value + a <= MAX_VALUE]
    if skill == "subtract":
        return list(range(1, min(20, value) + 1))
    if skill == "multiply":
        return [a for a in range(2, 10) if value * a <= MAX_VALUE]
    if skill == "divide":
        return [a for a in range(2, 10) if value % a == 0 and value > 0]
    return [a for a in range(3, 10) if value >= a]  # remainder


def _apply(skill: str, value: int, operand: int) -> int:
    return {"add": value + operand, "subtract": value - operand, "multiply": value * operand,
            "divide": value // operand, "remainder": value % operand}[skill]


def chain(rng: np.random.Generator, n_steps: int, weights: Mapping[str, float]) -> tuple[int, list[Step]]:
    """A start value and `n_steps` steps, each skill drawn by `weights` among those feasible at that value."""
    start = value = int(rng.integers(2, 51))
    steps: list[Step] = []
    for _ in range(n_steps):
        feasible = [s for s in SKILLS if weights.get(s, 0.0) > 0 and _operands(s, value)]
        if not feasible:  # e.g. only `divide` allowed and the value is prime: restart the chain
            return chain(rng, n_steps, weights)
        p = np.array([weights[s] for s in feasible], dtype=float)
        skill = feasible[int(rng.choice(len(feasible), p=p / p.sum()))]
        options = _operands(skill, value)
        operand = options[int(rng.integers(len(options)))]
        result = _apply(skill, value, operand)
        steps.append(Step(skill, operand, value, result))
        value = result
    return start, steps


def question_text(start: int, steps: Sequence[Step]) -> str:
    ops = ", then ".join(PHRASES[s.skill].format(a=s.operand) for s in steps)
    return f"Start with {start}. {ops[0].upper()}{ops[1:]}. What is the result?"


def solution_text(steps: Sequence[Step], style: int = 0) -> str:
    return " ".join([*(s.text(style) for s in steps), FINAL.format(r=steps[-1].result)])


def make_problem(pid: str, start: int, steps: Sequence[Step], style: int = 0, source: str = "generated") -> Problem:
    return Problem(id=pid, question=question_text(start, steps), answer=str(steps[-1].result),
                   solution=solution_text(steps, style), skills=tuple(dict.fromkeys(s.skill for s in steps)),
                   level=len(steps), source=source, steps=tuple(s.skill for s in steps))


def uniform_weights(skills: Sequence[str] = SKILLS) -> dict[str, float]:
    return {s: 1.0 for s in skills}


def problem_set(count: int, seed: int, *, steps: tuple[int, int] = (1, 3), weights: Mapping[str, float] | None = None,
                style: int = 0, prefix: str = "p") -> list[Problem]:
    """`count` problems with 1..3 steps (uniform), skills drawn by `weights` (uniform by default)."""
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    rng = np.random.default_rng(seed)
    skill_weights = dict(weights or uniform_weights())
    out = []
    for i in range(count):
        start, chain_steps = chain(rng, int(rng.integers(steps[0], steps[1] + 1)), skill_weights)
        out.append(make_problem(f"{prefix}{seed}-{i}", start, chain_steps, style))
    return out


def restyle(problem: Problem, style: int) -> Problem:
    """The same question with its solution written in another step style (an Augment rewrite)."""
    start, steps = parse_chain(problem)
    return make_problem(problem.id, start, steps, style, problem.source)


def parse_chain(problem: Problem) -> tuple[int, list[Step]]:
    """Recover the start value and steps of a generated question (the reference solution, step by step)."""
    match = re.fullmatch(r"Start with (\d+)\. (.+)\. What is the result\?", problem.question)
    if match is None:
        raise ValueError(f"problem {problem.id} is not a generated chain question: {problem.question!r}")
    value = start = int(match.group(1))
    steps = []
    for phrase in match.group(2).split(", then "):
        skill = next(s for s, p in PHRASES.items() if phrase.lower().startswith(p.split(" {a}")[0]))
        operand = int(phrase.rsplit(" ", 1)[1])
        result = _apply(skill, value, operand)
        steps.append(Step(skill, operand, value, result))
        value = result
    return start, steps
