"""Long-context accuracy under sparse prefill: RULER-style prompts answered by a model whose prefill is the method.

The second task of the family (ProxyAttn's RULER table, spec "T-PA-1"): each prompt is prefilled with
`hf_attention.sparse_prefill` (every layer's prefill attention estimated and computed by the method), then
the answer is decoded greedily with dense attention over the full KV cache. The predictions table has a
row per sample: `sample`, `task`, `context_length` (the requested length, RULER's column), `prompt_tokens`,
`prediction`, `answers` (JSON list), `density` (mean prefill density over layers), `estimation_ms`,
`attention_ms` (the layers' estimation and sparse attention) and `prefill_ms` (the whole prefill forward,
time to first token). Scores come from `prediction` and the instance's answers alone
(`long_context_metrics`), so stored or user-supplied predictions re-score the same way.

Seeds: instance `seed` draws `ruler.generate(task, length, samples, seed=EVAL_SEED_BASE + seed)`, i.e.
per-sample seeds of at least (10**6 + seed) * 1_000_003 > 2**31. `tiny_model.prepare` trains on samples
seeded below 2**31 (`randrange(2**31)`) and checks itself on `generate(seed=10_000 + model seed)`, so for
seeds >= 0 and model seeds below 990,000 no evaluated prompt was ever trained or checked on.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from harness import DataError, Instance, Metric, RunContext, Task
from harness.causal_lm import load_causal_lm
from harness.contracts import reject_split_keys
from harness.model_cache import model_folder
from harness.predictions_schema import Column, PredictionsSchema
from methods.sparse_attention import ruler
from methods.sparse_attention.task import block_size_of

if TYPE_CHECKING:  # torch, imported where a run needs it: validating and planning a suite load this task without it
    import torch

    from methods.sparse_attention.method import BlockSparseMethod

EVAL_SEED_BASE = 1_000_000
SOURCE = "sparse_attention.ruler_tiny"
DTYPES = ("float32", "float16", "bfloat16")
COLUMNS = ["sample", "task", "context_length", "prompt_tokens", "prediction", "answers", "density",
           "estimation_ms", "attention_ms", "prefill_ms"]


@dataclass(frozen=True)
class Prompt:
    """What the method sees of a sample: its text and how many tokens it may answer with, not the answer."""

    sample: str
    task: str
    context_length: int
    text: str
    max_new_tokens: int


@dataclass(frozen=True)
class Drawn:
    """A generated sample with its id (`task/length/i`) and the length it was asked for (RULER's column;
    `sample.context_length` counts the tokens actually written, a few fewer for kv_retrieval)."""

    sample_id: str
    context_length: int
    sample: ruler.RulerSample


@dataclass(frozen=True)
class LongContextInputs:
    prompts: tuple[Prompt, ...]
    model: Any       # a causal LM in eval mode (Llama- or Qwen2-style)
    tokenizer: Any
    block_size: int


@dataclass(frozen=True)
class RulerTiny:
    """The loaded dataset: which samples to draw, and the model (with its tokenizer) that answers them."""

    tasks: tuple[str, ...]
    context_lengths: tuple[int, ...]
    samples: int
    block_size: int
    model_dir: Path
    model: Any
    tokenizer: Any
    source: str = SOURCE

    def instance(self, seed: int) -> list[Drawn]:
        """Every (task, length)'s samples for `seed` (see the module docstring for the seed space)."""
        return [Drawn(f"{task}/{length}/{i}", length, sample)
                for task in self.tasks for length in self.context_lengths
                for i, sample in enumerate(ruler.generate(task, length, self.samples, seed=EVAL_SEED_BASE + seed))]


def ruler_tiny(tasks: list[str] | None = None, context_lengths: list[int] | None = None, samples: int = 10,
               model: Mapping[str, Any] | None = None, block_size: int = 64) -> RulerTiny:
    """RULER-style samples and the model answering them. `model` is `tiny_model.prepare`'s arguments
    (`cache_dir`, `seed`, `num_threads`, `config` as a dict of `TrainingConfig` fields; default: the
    family's tiny Llama, trained on first use and cached), or `{path: DIR}` (any local Hugging Face
    causal-LM folder with its tokenizer, e.g. a real checkpoint on a GPU), with an optional
    `dtype` (float32, float16, bfloat16) in either case. A path enters the run keys as written: weights
    replaced in place under the same path are not noticed, so give a new checkpoint a new folder."""
    if model is not None and not isinstance(model, Mapping):
        raise DataError(f"model must be a mapping, got {model!r}", field="args.model",
                        hint="Use {path: DIR} for a local model folder, or tiny_model.prepare's arguments.")
    tasks = list(ruler.TASKS) if tasks is None else list(tasks)
    unknown = [t for t in tasks if t not in ruler.TASKS]
    if unknown or not tasks:
        raise DataError(f"unknown RULER task {unknown[0]!r}" if unknown else "no tasks given", field="args.tasks",
                        hint=f"Known: {', '.join(ruler.TASKS)}.")
    lengths = [1024, 2048, 4096] if context_lengths is None else list(context_lengths)
    if not lengths or any(not isinstance(n, int) or isinstance(n, bool) or n < 1 for n in lengths):
        raise DataError(f"context_lengths must be positive integers, got {lengths}", field="args.context_lengths")
    if not isinstance(samples, int) or samples < 1:
        raise DataError(f"samples (per task and length) must be a positive integer, got {samples!r}",
                        field="args.samples")
    try:
        block_size = block_size_of({"block_size": block_size})
    except ValueError as exc:
        raise DataError(str(exc).replace("split key", "argument"), field="args.block_size") from None
    options = dict(model or {})
    dtype = options.pop("dtype", "float32")
    if dtype not in DTYPES:
        raise DataError(f"model dtype {dtype!r} is not one of {', '.join(DTYPES)}", field="args.model.dtype")
    path = model_dir(options)
    loaded, tokenizer = load_model(path, dtype)
    limit = getattr(loaded.config, "max_position_embeddings", None)
    if limit is not None and max(lengths) > limit:
        raise DataError(f"context length {max(lengths)} exceeds the model's max_position_embeddings ({limit})",
                        file=path, field="args.context_lengths")
    return RulerTiny(tuple(tasks), tuple(lengths), samples, block_size, path, loaded, tokenizer)


def model_dir(options: dict[str, Any]) -> Path:
    """The model folder: `path` as given, or `tiny_model.prepare(**options)` (trained if not cached)."""
    from methods.sparse_attention import tiny_model

    return model_folder(options, tiny_model.prepare, tiny_model.TrainingConfig)


def load_model(path: Path, dtype: torch.dtype | str) -> tuple[Any, Any]:
    """The causal LM and tokenizer saved in `path`, offline; `DataError` naming the folder and what it lacks."""
    return load_causal_lm(path, dtype)


def greedy_answer(model: Any, tokenizer: Any, text: str, max_new_tokens: int) -> tuple[str, int, float]:
    """Greedy continuation up to `max_new_tokens` or EOS (as `tiny_model.generate_answer`, on the model's
    device), the prompt's token count, and the prefill forward's wall time in ms (time to first token)."""
    import torch

    from methods.sparse_attention.timing import timed

    ids = torch.tensor([tokenizer.encode(text)], device=model.device)
    eos = tokenizer.eos_token_id
    with torch.no_grad():
        output, prefill_ms = timed(lambda: model(input_ids=ids, use_cache=True, logits_to_keep=1), model.device)
        tokens: list[int] = []
        for step in range(max_new_tokens):
            token = int(output.logits[0, -1].argmax())
            if token == eos:
                break
            tokens.append(token)
            if step + 1 < max_new_tokens:
                output = model(input_ids=torch.tensor([[token]], device=model.device),
                               past_key_values=output.past_key_values, use_cache=True)
    return tokenizer.decode(tokens, skip_special_tokens=True), int(ids.shape[1]), prefill_ms


def run_long_context(method: BlockSparseMethod, inputs: LongContextInputs, ctx: RunContext) -> pd.DataFrame:
    """Answer every prompt with `method` as the prefill attention; one row per sample (no `answers` yet)."""
    from methods.sparse_attention.hf_attention import sparse_prefill

    model = inputs.model.to(ctx.device)
    rows = []
    with sparse_prefill(model, method, inputs.block_size) as stats:
        for prompt in inputs.prompts:
            stats.reset()
            prediction, tokens, prefill_ms = greedy_answer(model, inputs.tokenizer, prompt.text, prompt.max_new_tokens)
            if stats.fallbacks:
                ctx.log.info("%s: %d layer(s) fell back: %s", prompt.sample, stats.fallbacks, stats.layers[0].fallback)
            rows.append({"sample": prompt.sample, "task": prompt.task, "context_length": prompt.context_length,
                         "prompt_tokens": tokens, "prediction": prediction, "density": stats.density,
                         "estimation_ms": stats.estimation_ms, "attention_ms": stats.attention_ms,
                         "prefill_ms": prefill_ms, "fallbacks": stats.fallbacks})
    table = pd.DataFrame(rows)
    ctx.record("estimation_ms", table["estimation_ms"].sum(), "ms", higher_is_better=False)
    ctx.record("attention_ms", table["attention_ms"].sum(), "ms", higher_is_better=False)
    ctx.record("prefill_ms", table["prefill_ms"].sum(), "ms", higher_is_better=False)
    ctx.record("tokens_per_s", table["prompt_tokens"].sum() / (table["prefill_ms"].sum() / 1e3), "tokens/s",
               higher_is_better=True)
    ctx.record("dense_fallbacks", table.pop("fallbacks").sum(), "layers")
    return table


def scored_table(predictions: pd.DataFrame, answers: Mapping[str, Drawn]) -> pd.DataFrame:
    """A checked predictions table (`LongContextAccuracy.predictions_schema`: a row per sample of the instance)
    in the instance's order, with task and length from the instance and `score`; an empty prediction answers
    nothing, an empty density is NaN."""
    by_id = predictions.set_index("sample")
    answered = by_id["prediction"].fillna("")
    ids = list(answers)
    return pd.DataFrame({
        "sample": ids, "task": [answers[i].sample.task for i in ids],
        "context_length": [answers[i].context_length for i in ids],
        "score": [ruler.score_sample(answered.at[i], answers[i].sample.answers) for i in ids],
        "density": by_id["density"].loc[ids].to_numpy(dtype=float),
    })


class LongContextAccuracy(Task):
    """RULER accuracy (Avg, wAvg, per length, per task) and prefill density of a model under sparse prefill."""

    # One row per sample; task, length and answers come from the instance. A bring-your-own file may leave out
    # `density` (prefill_density is then NaN) and the timings.
    predictions_schema = PredictionsSchema(
        (Column("sample", "text", description="the sample's id, task/length/i"),
         Column("prediction", "text", may_be_empty=True, description="the model's answer; empty: none"),
         Column("density", "number", may_be_empty=True, description="the prefill's density, mean over layers")),
        sample="sample")

    def test_samples(self, instance: Instance) -> list[str]:
        return list(instance.truth)

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "long-context", "block_size, lengths and samples are arguments of the dataset")

    def instance(self, data: RulerTiny, split: Mapping[str, Any], seed: int) -> Instance:
        from methods.sparse_attention.tiny_model import answer_budget

        drawn = data.instance(seed)
        prompts = tuple(Prompt(d.sample_id, d.sample.task, d.context_length, d.sample.prompt,
                               answer_budget(d.sample, data.tokenizer)) for d in drawn)
        return Instance(inputs=LongContextInputs(prompts, data.model, data.tokenizer, data.block_size),
                        truth={d.sample_id: d for d in drawn})

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        if not isinstance(output, pd.DataFrame):
            raise TypeError(f"a long-context method returns a DataFrame of answers, got {type(output).__name__}")
        table = output.copy()
        table["answers"] = [json.dumps(instance.truth[str(s)].sample.answers) for s in table["sample"]]
        return table[[c for c in COLUMNS if c in table.columns]]

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        table = scored_table(predictions, instance.truth)
        return {key: metric(table) for key, metric in metrics.items()}
