"""Every math-reasoning method's parameters: types, ranges and defaults (STAT's and GRACE's papers, the spec's).

Torch-free, so `harness validate` and `harness plan` check a suite without importing a method.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from harness import MethodParams
from harness.model_cache import PREPARE_KEYS
from methods.math_reasoning.stat import K_PER_SKILL
from methods.math_reasoning.tiny_model import TINY_STUDENT, StudentConfig

Difficulty = Literal["oracle", "consistency"]  # stage 1: the base student's wrong answers, or its inconsistency


class ModelEvaluationParams(MethodParams):
    """One model, decoded one way: greedy pass@1 (temperature 0) or average-at-k over `samples` samples."""

    tiny = {"model": TINY_STUDENT, "max_new_tokens": 8}
    model: dict[str, Any] | None = Field(None, description="{path: DIR}, or tiny_model.prepare options")
    backend: Literal["harness", "lm_eval"] = "harness"
    temperature: float = Field(0.0, ge=0, description="0 is greedy")
    samples: int = Field(1, ge=1)
    batch_size: int = Field(64, ge=1)
    max_new_tokens: int = Field(96, ge=1)

    @field_validator("model")
    @classmethod
    def _model_mapping(cls, model: dict[str, Any] | None) -> dict[str, Any] | None:
        """The mapping's keys, checked without preparing anything."""
        if model is None:
            return None
        if "path" in model and len(model) > 1:
            raise ValueError(f"model has 'path' and {sorted(set(model) - {'path'})}; give one or the other")
        unknown = sorted(set(model) - {"path", *PREPARE_KEYS})
        if unknown:
            raise ValueError(f"unknown model argument {unknown[0]!r}; known: path, {', '.join(PREPARE_KEYS)}")
        config = model.get("config", {})
        known = {field.name for field in dataclasses.fields(StudentConfig)}
        if not isinstance(config, dict) or set(config) - known:
            raise ValueError(f"model.config must be a mapping of StudentConfig fields ({', '.join(sorted(known))}), "
                             f"got {config!r}")
        return model

    @model_validator(mode="after")
    def _decoding(self) -> "ModelEvaluationParams":
        if self.temperature == 0 and self.samples > 1:
            raise ValueError(f"samples {self.samples} at temperature 0 would repeat one greedy answer; "
                             "give a temperature > 0 for average-at-k")
        if self.backend == "lm_eval" and (self.temperature > 0 or self.samples > 1):
            raise ValueError("the lm_eval backend decodes greedily (temperature 0, samples 1); "
                             "use backend: harness for sampled average-at-k")
        return self


class StatParams(MethodParams):
    """STAT's stage 1 rule and a teacher that misses a wrong step with probability `teacher_noise`."""

    difficulty: Difficulty = "oracle"
    teacher_noise: float = Field(0.0, ge=0, le=1)


class StatSelParams(StatParams):
    k: int = Field(K_PER_SKILL, ge=1, description="Skill-Map questions per (difficult question, missing skill)")


class StatSynParams(StatParams):
    tiny = {"max_rounds": 1}
    temperature: float = Field(0.7, ge=0, description="the teacher's sampling temperature")
    max_rounds: int = Field(8, ge=1, description="synthesis rounds at most")


class EmbedSelParams(MethodParams):
    difficulty: Difficulty = "oracle"
    neighbours: int = Field(5, ge=1, description="nearest training questions per difficult one (App. C.2)")


class GradientParams(MethodParams):
    """Projected student gradients: a Rademacher projection to `dim`, computed `gradient_batch` at a time."""

    tiny = {"dim": 16}
    dim: int = Field(512, ge=1)
    batch_size: int = Field(128, ge=1)
    gradient_batch: int = Field(32, ge=1)


class GraceParams(GradientParams):
    """GRACE's 10 cross-validation splits of 10 % held-out prompts, regulariser alpha 1e-3."""

    n_splits: int = Field(10, ge=1)
    test_fraction: float = Field(0.1, gt=0, lt=1)
    alpha: float = Field(1e-3, ge=0, le=1)


class InitialLossParams(MethodParams):
    batch_size: int = Field(64, ge=1)
