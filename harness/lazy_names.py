"""Module attributes imported on first use (PEP 562), for the packages a command starts through.

`python -m harness.cli` imports `harness` and `harness.cli` before `harness.entry_point` can turn a Ctrl-C into
"interrupted"; so those packages import nothing when they load, and fetch a public name's module when it is
first asked for.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def imported_on_first_use(package: dict[str, Any], homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` (its globals): `homes` maps each public name to its module."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        package[name] = value  # looked up once
        return value

    return __getattr__
