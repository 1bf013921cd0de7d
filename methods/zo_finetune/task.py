"""Fine-tune a model on one prompt-classification task and score its test predictions (QZO's Table 1 protocol).

A dataset is a task (SST-2, RTE, CB or BoolQ in MeZO's prompts) with the model to adapt; each seed is a data
seed (the paper's Table 4): its own 1,000 training and 500 dev examples, the same 1,000 test examples for
every seed. The predictions table has a row per test example (`example`, `label`, `prediction`), so
accuracy is re-scorable from the table and the instance's labels.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.contracts import reject_split_keys
from harness.model_cache import model_folder as resolve_model_folder
from harness.predictions_schema import Column, PredictionsSchema
from methods.zo_finetune import synthetic
from methods.zo_finetune.prompts import PromptExample, load_jsonl
from methods.zo_finetune.tiny_model import DTYPES, PretrainingConfig, prepare

TEST_SEED, DEV_SEED_BASE = 30_000, 50_000  # disjoint from pre-training (10,000 + seed) and its check (20,000)


@dataclass(frozen=True)
class PromptTaskData:
    """A task's examples per split (train and dev per data seed) and the model folder."""

    task: str
    model_dir: Path
    sizes: tuple[int, int, int]
    files: Mapping[str, list[PromptExample]] | None = None  # user JSONL splits, when given
    dtype: str = "float32"

    def split(self, name: str, seed: int) -> list[PromptExample]:
        train, dev, test = self.sizes
        if self.files is not None:
            examples = self.files[name]
            if name == "test":
                return examples[:test]
            rng = np.random.default_rng(seed)
            return [examples[i] for i in rng.permutation(len(examples))[:train if name == "train" else dev]]
        count, data_seed = {"train": (train, seed), "dev": (dev, DEV_SEED_BASE + seed), "test": (test, TEST_SEED)}[name]
        return synthetic.examples(self.task, count, data_seed)


def _sizes(train: int, dev: int, test: int) -> tuple[int, int, int]:
    for name, value in (("train", train), ("dev", dev), ("test", test)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise DataError(f"{name} must be a positive number of examples, got {value!r}", field=f"args.{name}")
    return train, dev, test


def model_dtype(model: Mapping[str, Any] | None) -> str:
    """The compute dtype a model is loaded in: `dtype` of the model mapping, float32 by default."""
    dtype = dict(model or {}).get("dtype", "float32")
    if dtype not in DTYPES:
        raise DataError(f"model dtype {dtype!r} is not one of {', '.join(DTYPES)}", field="args.model.dtype",
                        hint="The paper loads its models in float16 (--load_float16); float32 is the CPU default.")
    return dtype


def model_folder(model: Mapping[str, Any] | None) -> Path:
    """`{path: DIR}` as given, else `tiny_model.prepare(**model)` (pre-trained on first use and cached)."""
    if model is not None and not isinstance(model, Mapping):
        raise DataError(f"model must be a mapping, got {model!r}", field="args.model",
                        hint="Use {path: DIR} for a local model folder, or {config: {architecture: opt}}.")
    options = {k: v for k, v in dict(model or {}).items() if k != "dtype"}
    return resolve_model_folder(options, prepare, PretrainingConfig)


def prompt_task(task: str, train: int = 1000, dev: int = 500, test: int = 1000,
                model: Mapping[str, Any] | None = None) -> PromptTaskData:
    """A generated task (`synthetic.py`) in MeZO's prompt, and the model: the family's tiny Llama by default."""
    if task not in synthetic.GENERATORS:
        raise DataError(f"unknown task {task!r}", field="args.task", hint=f"Known: {', '.join(synthetic.GENERATORS)}.")
    return PromptTaskData(task, model_folder(model), _sizes(train, dev, test), dtype=model_dtype(model))


def jsonl_task(task: str, train: str, dev: str, test: str, model: Mapping[str, Any],
               sizes: Mapping[str, int] | None = None) -> PromptTaskData:
    """A user's GLUE/SuperGLUE JSONL files of `task` (`prompts.load_jsonl`); each seed samples train and dev."""
    files = {name: load_jsonl(path, task) for name, path in (("train", train), ("dev", dev), ("test", test))}
    wanted = dict(sizes or {})
    counts = _sizes(*(wanted.get(name, len(files[name])) for name in ("train", "dev", "test")))
    return PromptTaskData(task, model_folder(model), counts, files, model_dtype(model))


class PromptClassification(Task):
    """Accuracy of option scoring on the test split after the method adapts the model on train (dev: selection)."""

    # One row per test example; its label comes from the instance (the table's `label` is kept for reading).
    predictions_schema = PredictionsSchema(
        (Column("example", "integer", description="the test example's position, 0 .. n-1"),
         Column("prediction", "integer", description="the chosen option's index")),
        sample="example")

    def test_samples(self, instance: Instance) -> list[int]:
        return list(range(len(instance.truth)))

    def check_split(self, split: Mapping[str, Any]) -> None:
        reject_split_keys(split, "classification", "the split sizes are arguments of the dataset")

    tiny_instance_is_slow = True  # a tiny Llama is pre-trained (into the model cache) first

    def tiny_instance(self, seed: int) -> Instance:
        """SST-2-style prompts, 32/16/32 examples, on a one-layer tiny Llama pre-trained for 3 steps."""
        model = {"config": {"steps": 3, "examples_per_task": 16, "batch_size": 4, "eval_examples": 8, "num_layers": 1}}
        return self.instance(prompt_task("sst2", train=32, dev=16, test=32, model=model), {}, seed)

    def hide_test_labels(self, inputs: Any, rng: np.random.Generator) -> Any:
        """Each test example's label drawn at random from its options: a method predicts without them."""
        test = tuple(dataclasses.replace(e, label=int(rng.integers(len(e.options)))) for e in inputs.test)
        return dataclasses.replace(inputs, test=test)

    def instance(self, data: PromptTaskData, split: Mapping[str, Any], seed: int) -> Instance:
        from methods.zo_finetune.finetune_io import FineTuneInputs  # torch, on use: validating a suite loads the task

        test = data.split("test", seed)
        inputs = FineTuneInputs(data.task, data.model_dir, data.split("train", seed), data.split("dev", seed), test,
                                data.dtype)
        return Instance(inputs=inputs, truth=np.array([e.label for e in test]))

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        from methods.zo_finetune.finetune_io import FineTuneOutput

        if isinstance(output, pd.DataFrame):
            return output
        if not isinstance(output, FineTuneOutput):
            raise TypeError(f"a fine-tuning method returns FineTuneOutput, got {type(output).__name__}")
        labels = instance.truth
        return pd.DataFrame({"example": np.arange(len(labels)), "label": labels, "prediction": output.predictions})

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        chosen = predictions.set_index("example")["prediction"].loc[self.test_samples(instance)].to_numpy()
        return {key: metric(instance.truth, chosen) for key, metric in metrics.items()}
