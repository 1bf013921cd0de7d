"""What every teacher-scoring method shares: score each teacher of the pool, lower = better teacher, and record
the per-teacher scores; the gradient methods also share their projected gradients through a disk cache.

GRACE, its Bias and Variance terms, G-Norm and G-Vendi are all functions of the same projected gradients
h = R·g/√D of the student's response loss on a teacher's n x m examples. Those cost seconds per teacher
while the scores cost milliseconds, so they are cached per (student weights, teacher scoring data, d,
projection seed) as `cache_root()/math-grace-grads/<key>.npy` (written to a temporary name and renamed),
and the five methods, run separately, compute them once per seed. The run seed draws the scoring prompts
(`TeacherPool.scoring_set`), is the projection seed and sets GRACE's cross-validation splits (seeds
10·seed .. 10·seed + 9, so seed 0 gives the released splits).

Identical examples (a deterministic teacher's m equal responses) have equal gradients: each distinct
(tokens, prompt length) is differentiated once and its row copied.
"""
from __future__ import annotations

import json
import os
import time
from abc import abstractmethod
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from harness import Method, MethodParams
from harness.context import RunContext
from harness.fingerprint import digest
from methods.math_reasoning.params import GradientParams
from harness.model_cache import cache_root
from methods.math_reasoning.teacher_selection import PoolInputs, TeacherData, TeacherScores, student_key

GRADIENT_CACHE_VERSION = 1


P = TypeVar("P", bound=MethodParams)
GP = TypeVar("GP", bound=GradientParams)


class TeacherScorer(Method[P]):
    """Base of every scoring method: `score_teacher` returns one teacher's score, oriented lower-is-better."""

    def run(self, inputs: Any, ctx: RunContext) -> TeacherScores:
        if not isinstance(inputs, PoolInputs):
            raise TypeError(f"a teacher-scoring method takes PoolInputs, got {type(inputs).__name__}")
        scores = []
        for teacher in inputs.teachers:
            score = float(self.score_teacher(inputs, teacher, ctx))
            ctx.record(f"score_{teacher.teacher}", score)
            scores.append(score)
        return TeacherScores(scores)

    @abstractmethod
    def score_teacher(self, inputs: PoolInputs, teacher: TeacherData, ctx: RunContext) -> float:
        """One teacher's score; lower means the method expects a better distilled student."""


class StudentScorer(TeacherScorer[P]):
    """A scorer that runs the student: loaded once per run, in eager attention (vmap has no batching rule
    for the CPU SDPA kernel)."""

    _student: Any = None

    def student(self, inputs: PoolInputs) -> Any:
        if self._student is None:
            from methods.math_reasoning import tiny_model

            model, _ = tiny_model.load(inputs.student_dir)
            model.set_attn_implementation("eager")
            self._student = model
        return self._student


class GradientScorer(StudentScorer[GP]):
    """A score computed from a teacher's projected gradients [n·m, d] and their prompt ids."""

    _projector: Any = None  # the run's Rademacher projection, built on first use

    def score_teacher(self, inputs: PoolInputs, teacher: TeacherData, ctx: RunContext) -> float:
        return self.score_gradients(self.projected(inputs, teacher, ctx), teacher.prompt_ids, ctx)

    @abstractmethod
    def score_gradients(self, gradients: np.ndarray, prompt_ids: np.ndarray, ctx: RunContext) -> float:
        """The score from the projected gradients (float64, one row per response)."""

    def projected(self, inputs: PoolInputs, teacher: TeacherData, ctx: RunContext) -> np.ndarray:
        """The teacher's projected gradients, from the cache or computed (and cached); timing is recorded."""
        key = digest({"student": student_key(inputs.student_dir), "data": teacher.digest, "dim": self.params.dim,
                      "projection_seed": ctx.seed, "version": GRADIENT_CACHE_VERSION})
        path = cache_root(inputs.cache_dir) / "math-grace-grads" / f"{key}.npy"
        meta_path = path.with_suffix(".json")
        if path.is_file() and meta_path.is_file():
            gradients, meta = np.load(path), json.loads(meta_path.read_text())
            ctx.record(f"cached_{teacher.teacher}", 1.0)
        else:
            gradients, meta = self.compute(inputs, teacher, ctx.seed)
            _save_atomically(path, gradients, meta)
            ctx.record(f"cached_{teacher.teacher}", 0.0)
        ctx.record(f"gradient_s_{teacher.teacher}", meta["seconds"], "s", higher_is_better=False)
        ctx.record(f"examples_per_s_{teacher.teacher}", meta["distinct"] / max(meta["seconds"], 1e-9), "1/s",
                   higher_is_better=True)
        return gradients

    def compute(self, inputs: PoolInputs, teacher: TeacherData, seed: int) -> tuple[np.ndarray, dict]:
        from methods.math_reasoning.gradients import RademacherProjector, projected_gradients, trainable_dim

        model = self.student(inputs)
        if self._projector is None or self._projector.seed != seed:
            self._projector = RademacherProjector(trainable_dim(model), self.params.dim, seed)
        distinct, rows = np.unique(np.array([digest(e) for e in teacher.examples]), return_inverse=True)
        first = [int(np.flatnonzero(rows == i)[0]) for i in range(len(distinct))]
        started = time.perf_counter()
        unique = projected_gradients(model, [teacher.examples[i] for i in first], self._projector,
                                     self.params.batch_size, gradient_batch=self.params.gradient_batch)
        seconds = time.perf_counter() - started
        return unique[rows], {"seconds": seconds, "distinct": len(first), "examples": len(rows)}


def _save_atomically(path: Path, gradients: np.ndarray, meta: dict) -> None:
    """The .json beside the .npy is written last: its presence marks a complete entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for target, write in ((path, lambda f: np.save(f, gradients)),
                          (path.with_suffix(".json"), lambda f: f.write(json.dumps(meta).encode()))):
        tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
        with tmp.open("wb") as handle:
            write(handle)
        os.replace(tmp, target)
