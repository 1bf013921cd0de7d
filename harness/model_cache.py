"""Where families cache the models their `prepare` steps train, and how a trained model is published there.

Models are trained on first use and kept outside git: `$HARNESS_MODEL_CACHE`, else
~/.cache/iclr26-harness/models. Workers that race train into private staging folders and rename, so a
model folder appears whole or not at all.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

CACHE_ENV = "HARNESS_MODEL_CACHE"


def cache_root(cache_dir: str | Path | None = None) -> Path:
    """`cache_dir`, else $HARNESS_MODEL_CACHE, else ~/.cache/iclr26-harness/models."""
    return Path(cache_dir or os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "iclr26-harness" / "models")


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
