"""Scripts that are no package modules (`.ci/newcomer.py`, `docs/gen_*.py`), imported by their tests."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_script(path: Path) -> ModuleType:
    """The module of the script at `path`, executed once under its file's stem."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
