"""The model entry's parameters (torch- and lm-eval-free, so `validate` and `plan` check them without either)."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from harness import MethodParams
from harness.model_cache import PREPARE_KEYS

# The project's tiny models another family trains and caches (harness.model_cache): family -> (module, config).
TINY_FAMILIES = {"zo_finetune": ("methods.zo_finetune.tiny_model", "PretrainingConfig"),
                 "math_reasoning": ("methods.math_reasoning.tiny_model", "StudentConfig")}


class LmEvalModelParams(MethodParams):
    """One model run through an lm-eval backend, with lm-eval's batch, dtype and generation settings."""

    tiny = {"model": {"tiny": "zo_finetune"}, "batch_size": 8}
    model: dict[str, Any] = Field(description="{path: DIR} (a local Hugging Face folder), or {tiny: FAMILY, "
                                              "seed, config, ...}: that family's cached tiny model")
    backend: str = Field("hf", min_length=1, description="lm-eval's model name: hf, vllm, or one a plugin registers")
    dtype: Literal["float32", "float16", "bfloat16", "auto"] = "float32"
    batch_size: int = Field(16, ge=1)
    max_length: int | None = Field(None, ge=1, description="the backend's context length; None: the model's")
    generation: dict[str, Any] = Field({}, description="lm-eval gen_kwargs overriding each "
                                       "generative task's (temperature, do_sample, top_p, max_gen_toks, ...)")
    model_args: dict[str, Any] = Field({}, description="further backend arguments, passed as given")

    @field_validator("model")
    @classmethod
    def _model_mapping(cls, model: dict[str, Any]) -> dict[str, Any]:
        """`path` alone, or `tiny` with its family's prepare options: checked without preparing anything."""
        if "path" in model:
            if len(model) > 1:
                raise ValueError(f"model has 'path' and {sorted(set(model) - {'path'})}; give one or the other")
            return model
        if model.get("tiny") not in TINY_FAMILIES:
            raise ValueError(f"model needs 'path' or 'tiny' (one of {', '.join(TINY_FAMILIES)}), got {model!r}")
        unknown = sorted(set(model) - {"tiny", *PREPARE_KEYS})
        if unknown:
            raise ValueError(f"unknown model argument {unknown[0]!r}; known: tiny, {', '.join(PREPARE_KEYS)}")
        return model

    @field_validator("model_args")
    @classmethod
    def _reserved(cls, model_args: dict[str, Any]) -> dict[str, Any]:
        taken = sorted(set(model_args) & {"pretrained", "dtype", "max_length"})
        if taken:
            raise ValueError(f"model_args may not set {taken[0]!r}: it is the parameter "
                             f"{'model' if taken[0] == 'pretrained' else taken[0]}")
        return model_args
