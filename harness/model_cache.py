"""Where families cache the models their `prepare` steps train, and how a trained model is published there.

Models are trained on first use and kept outside git: `$HARNESS_MODEL_CACHE`, else
~/.cache/iclr26-harness/models. `cached_model` is every family's `prepare`: the first worker that needs an
uncached model trains it under a lock while the others wait, and publishes it through a private staging
folder and a rename, so a model folder appears whole or not at all.

A recipe (config, seed and training threads) gives the same weights wherever it is trained on one kind of
CPU (retraining zo_finetune's tiny Llama reproduced the cached weights bit for bit); the thread count is part
of it because reductions split across threads round differently (one and two threads gave other weights).
Kinds of CPU differ too, which the run's hardware fingerprint records.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from filelock import FileLock

from harness.errors import DataError
from harness.file_names import file_safe
from harness.fingerprint import digest

CACHE_ENV = "HARNESS_MODEL_CACHE"
PREPARE_KEYS = ("cache_dir", "seed", "num_threads", "config")  # every family's `prepare` takes these
TRAINING_THREADS = 1  # `num_threads` when a recipe names none: never "whatever the process has"


def cache_root(cache_dir: str | Path | None = None) -> Path:
    """`cache_dir`, else $HARNESS_MODEL_CACHE, else ~/.cache/iclr26-harness/models."""
    return Path(cache_dir or os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "iclr26-harness" / "models")


def recipe_digest(config: Any, seed: int, num_threads: int) -> str:
    """The hash naming a recipe's folder: its config dataclass, seed and training thread count."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
        raise DataError(f"num_threads must be a positive integer, got {num_threads!r}", field="args.model.num_threads")
    return digest({"config": asdict(config), "seed": seed, "num_threads": num_threads})


def recipe_folder(name: str, config: Any, seed: int, num_threads: int, cache_dir: str | Path | None = None) -> Path:
    """`<cache root>/<name>-<recipe digest>`: where the model of a recipe is published (`name` says which model)."""
    return cache_root(cache_dir) / file_safe(f"{name}-{recipe_digest(config, seed, num_threads)}")


@contextmanager
def training_threads(num_threads: int) -> Iterator[None]:
    """Train with `num_threads` torch threads, the caller's count restored afterwards."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@contextmanager
def training_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive lock on `root`'s lock file (`.<name>.lock` beside it) while training it: workers that
    need the same uncached model wait for the first to publish it instead of training a copy each."""
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(root.parent / f".{root.name}.lock"):
        yield


TrainedModel = tuple[Any, Any, Mapping[str, Any]]  # (model, tokenizer, the training record)
Trained = TypeVar("Trained")


def cached_model(root: Path, num_threads: int, train: Callable[[], TrainedModel]) -> Path:
    """`root` if a model is published there, else `train()` on `num_threads` torch threads (part of the recipe:
    other counts give other weights) and publish what it returns there as a Hugging Face folder."""
    return cached_folder(root, num_threads, train, write_hf_model)


def cached_folder(root: Path, num_threads: int, train: Callable[[], Trained], write: Callable[[Path, Trained], None]
                  ) -> Path:
    """`root` if a model is published there (its `training.json` marks it complete), else `train()` on
    `num_threads` torch threads and `write(staging, trained)` published there. One worker trains; one that waited
    for the lock finds the model and returns it. For models that are not Hugging Face folders (shape_control's)."""
    if (root / "training.json").is_file():
        return root
    with training_lock(root):
        if (root / "training.json").is_file():
            return root
        with training_threads(num_threads):
            trained = train()
        return publish(root, lambda staging: write(staging, trained))


def publish(root: Path, write: Callable[[Path], None]) -> Path:
    """Run `write(staging)` and rename the staging folder to `root`; a lost race keeps the winner's folder."""
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root.parent))
    try:
        write(staging)
        os.replace(staging, root)
    except OSError:  # another worker finished first: theirs was trained from the same recipe
        shutil.rmtree(staging, ignore_errors=True)
    return root


def model_folder(options: Mapping[str, Any], prepare: Callable[..., Path], config_type: type) -> Path:
    """A dataset's `model:` mapping resolved to a folder: `{path: DIR}` as given (any local Hugging Face
    model), else `prepare(**options)` (trained on first use), with `config` built as `config_type` from YAML
    (lists become tuples). Loader options such as `dtype` are the caller's to remove first."""
    options = dict(options)
    if "path" in options:
        if len(options) > 1:
            raise DataError(f"model has 'path' and {sorted(set(options) - {'path'})}; with a path only 'dtype' "
                            "may be given", field="args.model")
        return Path(str(options["path"])).expanduser()
    unknown = sorted(set(options) - set(PREPARE_KEYS))
    if unknown:
        raise DataError(f"unknown model argument {unknown[0]!r}", field=f"args.model.{unknown[0]}",
                        hint=f"Known: path, dtype, {', '.join(PREPARE_KEYS)}.")
    if "config" in options:
        try:
            options["config"] = config_type(**{k: _tuples(v) for k, v in dict(options["config"]).items()})
        except TypeError as exc:
            raise DataError(f"bad tiny-model config: {exc}", field="args.model.config") from None
    return prepare(**options)


def _tuples(value: Any) -> Any:
    """YAML lists as the tuples frozen config dataclasses hold."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def publish_model(root: Path, model: Any, tokenizer: Any, record: Mapping[str, Any]) -> Path:
    """Publish a trained model as an ordinary Hugging Face folder: weights, tokenizer, and `training.json`
    (the recipe and what training measured), whose presence marks the folder complete."""
    return publish(root, lambda staging: write_hf_model(staging, (model, tokenizer, record)))


def write_hf_model(staging: Path, trained: TrainedModel) -> None:
    import json

    model, tokenizer, record = trained
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    (staging / "training.json").write_text(json.dumps(record, indent=2) + "\n")
