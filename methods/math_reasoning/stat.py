"""STAT's three stages (He, Panigrahi, Lin, Arora; ICLR 2026; spec: shared/papers/stat.md), on generated problems.

1. Difficult questions: the oracle (the student's greedy answer is wrong) or the paper's label-free
   consistency rule (App. E.1, Table 11: 5 samples, the modal answer appears fewer than 2 times). The
   paper's own rule thresholds a PRM's step scores; no PRM can be had offline.
2. Missing-Skill Profile: a teacher names, for each difficult validation question, the skills the student
   lacks. The CPU teacher is programmatic: it reads the student's steps against the generator's reference
   steps and names the skill of the first wrong (or missing) step, with optional label noise (GPT-4o-mini
   agrees with its own labels 70 % of the time, App. E.3). One skill per question where GPT-4o-mini gives
   2-3; the paper's skill list is GPT-4's, ours is the generator's five operations.
3. STAT-Sel: k training questions per (difficult question, missing skill) drawn from the Skill-Map
   (k = 5, App. B.2; Algorithm 1 writes 3), each with its 3 rewritten answers, subsampled to the budget.
   STAT-Syn: new questions for each missing skill, solved 3 times by a teacher model, kept when at least
   2 of the 3 answers agree, with only the agreeing solutions.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from methods.math_reasoning import generator
from methods.math_reasoning.answers import check_answer, extract_answer
from methods.math_reasoning.problems import Problem

CONSISTENCY_SAMPLES, CONSISTENCY_MIN_MODAL = 5, 2  # App. E.1: modal answer among 5 samples appears < 2 times
K_PER_SKILL = 5  # App. B.2 and the README; Algorithm 1 writes 3
SYN_QUESTIONS, SYN_SOLUTIONS, SYN_MIN_AGREE = 2, 3, 2  # App. C.3.3: 2 new questions, 3 solutions, >= 2 agree


def oracle_difficult(problems: Sequence[Problem], responses: Sequence[str]) -> list[bool]:
    """Ground truth: the student's (greedy) response is wrong."""
    return [not check_answer(p.answer, r).correct for p, r in zip(problems, responses, strict=True)]


def consistency_difficult(samples: Sequence[Sequence[str]]) -> list[bool]:
    """The label-free rule: among a question's samples the modal extracted answer appears < 2 times."""
    flags = []
    for responses in samples:
        answers = [a for a in (extract_answer(r) for r in responses) if a is not None]
        modal = Counter(answers).most_common(1)[0][1] if answers else 0
        flags.append(modal < CONSISTENCY_MIN_MODAL)
    return flags


def classifier_agreement(predicted: Sequence[bool], truth: Sequence[bool]) -> dict[str, float]:
    """Accuracy, precision, recall and F1 (%) of a difficulty rule against the oracle (the paper's Table 8/11)."""
    p, t = np.asarray(predicted, bool), np.asarray(truth, bool)
    tp = float((p & t).sum())
    precision = tp / p.sum() if p.sum() else 0.0
    recall = tp / t.sum() if t.sum() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"accuracy": 100 * float((p == t).mean()), "precision": 100 * precision, "recall": 100 * recall,
            "f1": 100 * f1}


_NUMBER = re.compile(r"-?\d+")


def first_wrong_skill(problem: Problem, response: str) -> str | None:
    """The skill of the student's first step whose result differs from the reference's, or of the first
    step it left out; the last step's when every step is right but the final answer is not; None if right."""
    _, steps = generator.parse_chain(problem)
    sentences = [s for s in re.split(r"(?<=\.)\s+", response.strip()) if _NUMBER.search(s)
                 and "final answer" not in s.lower()]
    for index, step in enumerate(steps):
        if index >= len(sentences):
            return step.skill
        numbers = _NUMBER.findall(sentences[index])
        if int(numbers[-1]) != step.result:
            return step.skill
    return None if check_answer(problem.answer, response).correct else steps[-1].skill


def missing_skill_profile(problems: Sequence[Problem], responses: Sequence[str], noise: float = 0.0,
                          seed: int = 0) -> dict[str, list[str]]:
    """Stage 2 with the programmatic teacher: question id -> missing skills, each label replaced by another
    skill with probability `noise` (the teacher's unreliability)."""
    rng = np.random.default_rng(seed)
    profile = {}
    for problem, response in zip(problems, responses, strict=True):
        skill = first_wrong_skill(problem, response)
        if skill is None:
            continue
        if noise > 0 and rng.random() < noise:
            skill = str(rng.choice([s for s in generator.SKILLS if s != skill]))
        profile[problem.id] = [skill]
    return profile


def skill_histogram(profile: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """How often each skill is named missing: the paper's Figs. 2 and 6."""
    return dict(Counter(s for skills in profile.values() for s in skills).most_common())


def skill_map(pool: Sequence[Problem]) -> dict[str, list[int]]:
    """Skill -> indices of the training questions labelled with it."""
    out: dict[str, list[int]] = {}
    for index, problem in enumerate(pool):
        for skill in problem.skills:
            out.setdefault(skill, []).append(index)
    return out


def with_rewrites(problems: Sequence[Problem]) -> list[Problem]:
    """Each question with its 3 rewritten answers (MATH-Augment's 3 per question; the step styles)."""
    return [generator.restyle(p, style) for p in problems for style in range(len(generator.STEP_STYLES))]


def subsample(items: Sequence, budget: int, rng: np.random.Generator) -> list:
    """`budget` items without replacement, or every item (repeated in a random order) when there are fewer:
    every method trains on exactly `budget` QA pairs (the paper normalises every dataset to 9.5k)."""
    if not items:
        raise ValueError("nothing to select from: the selection is empty")
    index = rng.permutation(len(items))
    while len(index) < budget:
        index = np.concatenate([index, rng.permutation(len(items))])
    return [items[i] for i in index[:budget]]


def stat_sel(pool: Sequence[Problem], profile: Mapping[str, Sequence[str]], budget: int, seed: int,
             k: int = K_PER_SKILL) -> list[Problem]:
    """Stage 3, selection: k pool questions per (difficult question, missing skill), with their rewrites."""
    rng = np.random.default_rng(seed)
    by_skill = skill_map(pool)
    picked = [pool[i] for skills in profile.values() for s in skills if by_skill.get(s)
              for i in rng.choice(by_skill[s], size=min(k, len(by_skill[s])), replace=False)]
    return subsample(with_rewrites(picked), budget, rng)


def implied_weights(pool: Sequence[Problem], profile: Mapping[str, Sequence[str]],
                    k: int = K_PER_SKILL) -> dict[str, float]:
    """Expected copies of a question per skill, k * n_s / |SkillMap(s)| (stat.md, inferred), for the log."""
    by_skill, counts = skill_map(pool), skill_histogram(profile)
    return {s: k * counts.get(s, 0) / len(by_skill[s]) for s in sorted(by_skill)}


def synthesis_questions(profile: Mapping[str, Sequence[str]], seed: int,
                        per_pair: int = SYN_QUESTIONS) -> list[Problem]:
    """New questions stressing each missing skill: `per_pair` per (difficult question, skill), each a chain
    with the skill in at least one step (the teacher's `<question>` at our scale)."""
    rng = np.random.default_rng(seed)
    out = []
    for qid, skills in profile.items():
        for skill in skills:
            for j in range(per_pair):
                weights = {s: (3.0 if s == skill else 1.0) for s in generator.SKILLS}
                while True:
                    start, steps = generator.chain(rng, int(rng.integers(1, 4)), weights)
                    if any(s.skill == skill for s in steps):
                        break
                out.append(generator.make_problem(f"syn-{qid}-{skill}-{j}", start, steps, source="synthesised"))
    return out


@dataclass(frozen=True)
class SynthesisYield:
    """How many synthesised questions the consistency filter kept (App. C.3.3)."""

    questions: int
    kept: int
    kept_correct: int  # kept questions whose agreed answer is the true one: the filter's precision


def consistency_filter(questions: Sequence[Problem],
                       solutions: Sequence[Sequence[str]]) -> tuple[list[tuple[str, str]], SynthesisYield]:
    """(question, solution) pairs of the questions whose teacher solutions agree (>= 2 of 3), agreeing ones only."""
    pairs: list[tuple[str, str]] = []
    kept = kept_correct = 0
    for problem, responses in zip(questions, solutions, strict=True):
        answers = [extract_answer(r) for r in responses]
        counted = Counter(a for a in answers if a is not None)
        if not counted:
            continue
        modal, count = counted.most_common(1)[0]
        if count < SYN_MIN_AGREE:
            continue
        kept += 1
        kept_correct += int(check_answer(problem.answer, f"The final answer is {modal}.").correct)
        pairs.extend((problem.question, r) for r, a in zip(responses, answers, strict=True) if a == modal)
    return pairs, SynthesisYield(len(questions), kept, kept_correct)
