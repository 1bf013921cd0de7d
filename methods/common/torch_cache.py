"""Tiny torch models (shape_control's flow generator and shape classifier, visual_reasoning's reasoner) trained on
first use and cached outside git through harness.model_cache: a folder named by the recipe's hash holding
`weights.pt` and `training.json`."""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.model_cache import cached_folder, recipe_folder

Trained = tuple[Any, Mapping[str, Any]]  # (the torch module, its training record)


def prepared(name: str, config: Any, seed: int, num_threads: int, cache_dir: str | Path | None,
             train: Callable[[Any, int], Trained]) -> Path:
    """The folder of model `name` (e.g. shape-flow) trained by `train(config, seed)` on `num_threads` torch threads,
    trained and published there first if absent (one worker trains, the others wait on the lock and find it)."""
    root = recipe_folder(name, config, seed, num_threads, cache_dir)
    return cached_folder(root, num_threads, lambda: train(config, seed), _write)


def _write(staging: Path, trained: Trained) -> None:
    import torch

    model, record = trained
    torch.save(model.state_dict(), staging / "weights.pt")
    (staging / "training.json").write_text(json.dumps(record, indent=2) + "\n")


def training_record(root: Path) -> dict[str, Any]:
    return json.loads((root / "training.json").read_text())


def load_weights(root: Path, model: Any) -> Any:
    """`model` with the weights published under `root`, in eval mode."""
    import torch

    model.load_state_dict(torch.load(root / "weights.pt", weights_only=True))
    return model.eval()
