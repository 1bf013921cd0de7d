"""Tiny torch models (the flow generator, the shape classifier) trained on first use and cached outside git
through harness.model_cache: a folder named by the recipe's hash holding `weights.pt` and `training.json`."""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.file_names import file_safe
from harness.model_cache import cache_root, publish, recipe_digest, training_lock, training_threads

Trained = tuple[Any, Mapping[str, Any]]  # (the torch module, its training record)


def recipe_folder(name: str, config: Any, seed: int, num_threads: int, cache_dir: str | Path | None) -> Path:
    return cache_root(cache_dir) / file_safe(f"shape-{name}-{recipe_digest(config, seed, num_threads)}")


def cached_torch_model(root: Path, num_threads: int, train: Callable[[], Trained]) -> Path:
    """`root` if a model is published there, else `train()` on `num_threads` torch threads and publish its
    state dict and record there (one worker trains, the others wait on the lock and find it)."""
    if (root / "training.json").is_file():
        return root
    with training_lock(root):
        if (root / "training.json").is_file():
            return root
        with training_threads(num_threads):
            model, record = train()

        def write(staging: Path) -> None:
            import torch

            torch.save(model.state_dict(), staging / "weights.pt")
            (staging / "training.json").write_text(json.dumps(record, indent=2) + "\n")

        return publish(root, write)


def training_record(root: Path) -> dict[str, Any]:
    return json.loads((root / "training.json").read_text())


def load_weights(root: Path, model: Any) -> Any:
    """`model` with the weights published under `root`, in eval mode."""
    import torch

    model.load_state_dict(torch.load(root / "weights.pt", weights_only=True))
    return model.eval()
