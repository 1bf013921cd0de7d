"""Memory per method and model: the analytic accounting for full-size configs, measured on the tiny models.

QZO's Fig. 1 compares peak memory of AdamW, SGD, MeZO and QZO. For a published config (`model_configs.py`)
the method's bytes are counted analytically on the meta device (`memory.py`: weights, gradients, optimizer
states, extra); for a tiny model the method also runs `steps` training steps at batch 1 (Fig. 1's setting)
and its tensors are measured: parameters and buffers, gradients held, optimizer states, and the process's
peak-RSS growth over the run, a hardware measure (CPU; on a GPU the harness's peak_cuda_mb is the paper's figure).
The predictions table has a row per (source, component) with its bytes.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.context import RunContext
from harness.contracts import reject_split_keys
from harness.predictions_schema import Column, PredictionsSchema
from methods.zo_finetune import synthetic
from methods.zo_finetune.model_configs import MODEL_CONFIGS
from methods.zo_finetune.task import model_folder

COMPONENTS = ("weights", "gradients", "optimizer_states", "extra", "total")


@dataclass(frozen=True)
class MemoryInputs:
    """A published config name (analytic only) or a model folder (analytic and measured)."""

    name: str
    model_dir: Path | None
    steps: int


def model_memory(model: str | Mapping[str, Any] = "llama-2-7b", steps: int = 5) -> MemoryInputs:
    """`model` is a config name (opt-6.7b, llama-2-7b, llama-2-13b, llama-3.1-8b) or `prompt_task`'s model mapping."""
    if not isinstance(steps, int) or steps < 1:
        raise DataError(f"steps must be a positive integer, got {steps!r}", field="args.steps")
    if isinstance(model, str):
        if model not in MODEL_CONFIGS:
            raise DataError(f"unknown model config {model!r}", field="args.model",
                            hint=f"Known: {', '.join(sorted(MODEL_CONFIGS))}; or a mapping such as {{path: DIR}}.")
        return MemoryInputs(model, None, steps)
    folder = model_folder(model)
    return MemoryInputs(folder.name, folder, steps)


def memory_table(analytic: Mapping[str, float], measured: Mapping[str, float] | None) -> pd.DataFrame:
    rows = [("analytic", k, v) for k, v in analytic.items()]
    rows += [("measured", k, v) for k, v in (measured or {}).items()]
    return pd.DataFrame(rows, columns=["source", "component", "bytes"])


def measurement_examples(count: int) -> list:
    """SST-2-format prompts for the measured steps (their content does not change the bytes)."""
    return synthetic.examples("sst2", count, seed=0)


class ModelMemory(Task):
    """Bytes per component, analytic and (tiny models) measured; the method returns the predictions table."""

    # One row per (source, component); a published config has no measured rows, so no component is required.
    predictions_schema = PredictionsSchema(
        (Column("source", "text", description="analytic or measured"),
         Column("component", "text", description="weights, gradients, optimizer_states, extra, total, ..."),
         Column("bytes", "number")),
        sample="component", per=("source",), every_sample=False)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "memory")

    def instance(self, data: MemoryInputs, split: Mapping[str, Any], seed: int) -> Instance:
        return Instance(inputs=data, truth=None)

    def tiny_instance(self, seed: int) -> Instance:
        """OPT-6.7B's published config: the analytic accounting, no model to load."""
        return self.instance(model_memory("opt-6.7b"), {}, seed)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, pd.DataFrame):
            raise TypeError(f"a method returns its memory table (a DataFrame), got {type(output).__name__}")
        return output

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        return {key: metric(predictions) for key, metric in metrics.items()}


def measure(method: Any, inputs: MemoryInputs, ctx: RunContext) -> pd.DataFrame:
    """`method`'s analytic bytes for the model's config and, for a model folder, its measured bytes.

    The tensor bytes are deterministic and scored from the table; the process's peak-RSS growth is not,
    so it is recorded as a hardware measure (`peak_rss_growth_mb`).
    """
    from methods.zo_finetune.memory import memory_breakdown, parameter_counts
    from methods.zo_finetune.model_configs import config

    if inputs.model_dir is None:
        model_config = config(inputs.name)
    else:
        from transformers import AutoConfig

        model_config = AutoConfig.from_pretrained(inputs.model_dir, local_files_only=True)
    counts = parameter_counts(model_config)
    breakdown = memory_breakdown(counts, method.memory_method)
    analytic = {c: float(getattr(breakdown, c)) for c in COMPONENTS}
    analytic["trainable_params"] = float(breakdown.trainable_params)
    measured = None
    if inputs.model_dir is not None:
        measured, rss_growth = _measured(method, inputs.model_dir, inputs.steps, ctx.seed)
        ctx.record("peak_rss_growth_mb", rss_growth / 2**20, "MB", higher_is_better=False)
    return memory_table(analytic, measured)


def _measured(method: Any, model_dir: Path, steps: int, seed: int) -> tuple[dict[str, float], float]:
    import psutil
    import torch

    from harness.measure import peak_rss_mb, reset_peak_rss
    from methods.zo_finetune.finetune_io import tensor_bytes
    from methods.zo_finetune.objective import OptionScorer
    from methods.zo_finetune.tiny_model import load

    reset_peak_rss()
    start_mb = psutil.Process().memory_info().rss / 2**20
    base, tokenizer = load(model_dir)
    scorer = OptionScorer(tokenizer)
    data = scorer.encode(measurement_examples(steps))
    torch.manual_seed(seed)
    model = method.prepare(base)
    optimizer = None
    if method.trains:
        adaptation = method.adapt(model, scorer, data, method.params.learning_rates[0], seed)
        for step in range(steps):
            adaptation.step([step])  # batch 1, as Fig. 1
        optimizer = adaptation.optimizer
    else:
        for _ in range(steps):
            scorer.predict(model, data, batch_size=1)
    measured = {k: float(v) for k, v in tensor_bytes(model, optimizer).items()}
    measured["total"] = sum(measured.values())
    return measured, max(0.0, peak_rss_mb() - start_mb) * 2**20


def _component(source: str, component: str, scale: float) -> Any:
    def value(table: pd.DataFrame) -> float:
        rows = table[(table["source"] == source) & (table["component"] == component)]["bytes"]
        return float(rows.iloc[0]) / scale if len(rows) else float("nan")
    return value


_GB, _MB = 1e9, 2**20
# name, source, component, scale, unit, description; each becomes the module attribute NAME.upper()
_METRICS = (
    ("analytic_total_gb", "analytic", "total", _GB, "GB", "analytic bytes (weights + gradients + optimizer + extra)"),
    ("analytic_weights_gb", "analytic", "weights", _GB, "GB", "analytic bytes of the (quantized) base weights"),
    ("analytic_gradients_gb", "analytic", "gradients", _GB, "GB", "analytic bytes of the gradients held"),
    ("analytic_optimizer_gb", "analytic", "optimizer_states", _GB, "GB", "analytic bytes of the optimizer states"),
    ("analytic_extra_gb", "analytic", "extra", _GB, "GB", "analytic bytes of scales, zero-points and adapters"),
    ("analytic_total_mb", "analytic", "total", _MB, "MB", "analytic bytes of the method, MiB (for the tiny models)"),
    ("trainable_params", "analytic", "trainable_params", 1.0, "", "parameters the method trains"),
    ("measured_tensor_mb", "measured", "total", _MB, "MB", "measured parameters, buffers, gradients, optimizer states"),
    ("measured_weights_mb", "measured", "weights", _MB, "MB", "measured bytes of the model's parameters and buffers"),
    ("measured_gradients_mb", "measured", "gradients", _MB, "MB", "measured bytes of the gradients held"),
    ("measured_optimizer_mb", "measured", "optimizer_states", _MB, "MB", "measured bytes of the optimizer's states"),
)
for _name, _source, _part, _scale, _unit, _text in _METRICS:
    globals()[_name.upper()] = Metric(_name, _component(_source, _part, _scale), higher_is_better=False, unit=_unit,
                                      description=_text, deterministic=True)  # sizes of a configuration, no noise
