"""A model as a method: lm-eval's `simple_evaluate` on the dataset's tasks, offline, with the run's seed.

The model is a local Hugging Face folder or a tiny model another family trains and caches, loaded by lm-eval's
backend (`hf` by default; `vllm` or a backend a plugin registers with lm-eval by name). The run's seed is every
seed lm-eval takes (Python, NumPy, torch and few-shot sampling), so seeds differ where generation samples or
few-shot examples are drawn, and repeat a greedy zero-shot run exactly. Every result lm-eval reports is recorded
as a figure of the run, `<task>/<metric>,<filter>` with lm-eval's direction and `<task>/<metric>_stderr,<filter>`
(lm-eval's within-run standard error, never the spread over seeds), plus `<task>/n-shot` and `<task>/version`;
lm-eval's per-sample records become the run's predictions (`task.LmEvalOutput`).
"""
from __future__ import annotations

import importlib
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import DataError, Method
from harness.context import RunContext
from harness.hf_datasets import hf_cache_root
from harness.model_cache import model_folder
from methods.lm_eval_tasks.data import TaskSelection
from methods.lm_eval_tasks.params import TINY_FAMILIES, LmEvalModelParams
from methods.lm_eval_tasks.task import LmEvalOutput

# What `datasets` raises offline for data it has not cached (DatasetNotFoundError is a FileNotFoundError).
MISSING_DATA = (FileNotFoundError, ConnectionError)


class LmEvalModel(Method[LmEvalModelParams]):
    """One model through one lm-eval backend, on whatever tasks the dataset names."""

    # lm-eval batches requests by length, so one run's log-likelihoods repeat bitwise per numerics fingerprint
    # (the default); another CPU's kernels may change their last digits, and a tie between choices with them.

    def model_folder(self) -> Path:
        """`{path: DIR}` as given, else the named family's tiny model (trained on first use, then cached)."""
        options = dict(self.params.model)
        if "path" in options:
            return Path(str(options["path"])).expanduser()
        module, config = TINY_FAMILIES[options.pop("tiny")]
        tiny_model = importlib.import_module(module)
        return model_folder(options, tiny_model.prepare, getattr(tiny_model, config))

    def run(self, inputs: TaskSelection, ctx: RunContext) -> LmEvalOutput:
        from methods.common.hf_models import offline, prepare_model

        with tempfile.TemporaryDirectory(prefix="lm-eval-model-") as scratch, offline():
            folder = self.model_folder()
            if self.params.backend == "hf":  # the bridge's tokenizer check: a missing eos is set in a view
                prepared = prepare_model(folder, Path(scratch))
                folder = prepared.path
                if prepared.patched:
                    ctx.log.warning("tokenizer lacked special tokens; set %s", prepared.patched)
            started = time.perf_counter()
            output = self._evaluate(folder, inputs, ctx)
            ctx.record("lm_eval_s", time.perf_counter() - started, "s", higher_is_better=False)
        _record_results(output, ctx)
        return LmEvalOutput(results=_results(output), samples=_samples(output.get("samples", {})))

    def _evaluate(self, folder: Path, inputs: TaskSelection, ctx: RunContext) -> dict[str, Any]:
        from lm_eval import simple_evaluate
        from lm_eval.tasks import TaskManager

        p = self.params
        model_args = {"pretrained": str(folder), "dtype": p.dtype, **p.model_args}
        if p.max_length is not None:
            model_args["max_length"] = p.max_length
        manager = TaskManager(include_path=str(inputs.folder) if inputs.folder else None,
                              include_defaults=inputs.folder is None)
        try:
            return simple_evaluate(
                model=p.backend, model_args=model_args, tasks=list(inputs.tasks), task_manager=manager,
                num_fewshot=inputs.num_fewshot, limit=inputs.limit, batch_size=p.batch_size, device=ctx.device,
                gen_kwargs=dict(p.generation) or None, log_samples=True, random_seed=ctx.seed,
                numpy_random_seed=ctx.seed, torch_random_seed=ctx.seed, fewshot_random_seed=ctx.seed)
        except MISSING_DATA as exc:
            raise DataError(f"lm-eval could not read a task's data offline ({type(exc).__name__}: {exc})",
                            field="args.task", hint=f"The datasets cache is {hf_cache_root(None)}; "
                            "fill it where the Hub can be reached (datasets.load_dataset) and copy it here.") from None


def _number(value: Any) -> float | None:
    """lm-eval's value (a number, or a version such as "1.0") as a float; None for the "N/A" it reports for a
    stderr it could not compute."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _results(output: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """lm-eval's results keyed "<metric>,<filter>" per task; its bookkeeping entries (alias, sample_len) dropped."""
    return {task: {key: _number(value) for key, value in values.items() if "," in key}
            for task, values in output["results"].items()}


def _record_results(output: dict[str, Any], ctx: RunContext) -> None:
    directions = output.get("higher_is_better", {})
    for task, values in _results(output).items():
        for key, value in values.items():
            if value is None:
                continue
            metric = key.split(",", 1)[0]
            better = None if metric.endswith("_stderr") else directions.get(task, {}).get(metric)
            ctx.record(f"{task}/{key}", value, higher_is_better=better)
        shots = _number(output.get("n-shot", {}).get(task))
        if shots is not None:
            ctx.record(f"{task}/n-shot", shots)
        version = _number(output.get("versions", {}).get(task))
        if version is not None:
            ctx.record(f"{task}/version", version)


def _samples(samples: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One record per (task, document, filter), with lm-eval's per-sample score for each of its metrics."""
    return [{"task": task, "doc_id": example["doc_id"], "filter": example["filter"], "target": example["target"],
             "resps": example["resps"], "filtered": example["filtered_resps"],
             "metrics": {metric: example[metric] for metric in example["metrics"]}}
            for task, examples in samples.items() for example in examples]
