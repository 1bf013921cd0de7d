"""Registries of tasks, datasets, metrics, methods and executors.

Entries are lazy `module:attr` strings, so listing and validating never imports torch.
Built-in families and third-party packages register the same way: through the
`harness.families` entry-point group (a module that calls `add` on import) or through
per-kind groups (`harness.methods`, `harness.datasets`, ...) whose entries point at objects.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from harness.errors import RegistryError

KINDS = ("tasks", "datasets", "metrics", "methods", "executors")


@dataclass(frozen=True)
class Entry:
    """One registered name; `target` is an object or a lazy `module:attr` string."""

    name: str
    target: Any
    description: str
    meta: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Any:
        if not isinstance(self.target, str):
            return self.target
        module_name, _, attr = self.target.partition(":")
        module = importlib.import_module(module_name)
        obj: Any = module
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj


class Registry:
    """Names of one kind of thing, with did-you-mean errors for the unknown ones."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def add(self, name: str, target: Any, description: str, **meta: Any) -> None:
        if name in self._entries:
            raise RegistryError(
                f"{self.kind[:-1]} '{name}' is registered twice",
                hint="Rename one of them; names are global across families and plugins.",
            )
        self._entries[name] = Entry(name, target, description, dict(meta))

    def names(self) -> list[str]:
        _ensure_plugins_loaded()
        return sorted(self._entries)

    def entries(self) -> list[Entry]:
        return [self._entries[n] for n in self.names()]

    def resolve(self, name: str, family: str | None = None) -> str:
        """Full registered name for `name`, trying it unqualified within `family` too."""
        _ensure_plugins_loaded()
        if name in self._entries:
            return name
        if family and f"{family}.{name}" in self._entries:
            return f"{family}.{name}"
        raise RegistryError(f"unknown {self.kind[:-1]} '{name}'", hint=self.did_you_mean(name, family))

    def entry(self, name: str, family: str | None = None) -> Entry:
        return self._entries[self.resolve(name, family)]

    def get(self, name: str, family: str | None = None) -> Any:
        return self.entry(name, family).load()

    def did_you_mean(self, name: str, family: str | None = None) -> str:
        short = {n.split(".", 1)[1]: n for n in self._entries if family and n.startswith(family + ".")}
        candidates = list(self._entries) + list(short)
        close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
        if close:
            return "Did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
        listing = ", ".join(sorted(short) or sorted(self._entries)) or "none"
        return f"Registered {self.kind}: {listing}."


tasks = Registry("tasks")
datasets = Registry("datasets")
metrics = Registry("metrics")
methods = Registry("methods")
executors = Registry("executors")
REGISTRIES: dict[str, Registry] = {
    "tasks": tasks, "datasets": datasets, "metrics": metrics, "methods": methods, "executors": executors,
}

_plugins_loaded = False
_plugin_files: set[Path] = set()


def _ensure_plugins_loaded() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    executors.add("inline", "harness.executors.inline:InlineExecutor", "same process, for debugging")
    executors.add("local", "harness.executors.local:LocalExecutor", "pool of isolated worker processes")
    executors.add("ray", "harness.executors.ray:RayExecutor", "Ray tasks on a local instance or a cluster")
    executors.add("slurm", "harness.executors.slurm:SlurmExecutor", "Slurm job arrays through submitit")
    for ep in entry_points(group="harness.families"):
        ep.load()
    for kind, registry in REGISTRIES.items():
        for ep in entry_points(group=f"harness.{kind}"):
            registry.add(ep.name, ep.value, f"plugin from {ep.dist.name if ep.dist else 'unknown'}")


def load_plugin_file(path: str | Path) -> None:
    """Import a user's Python file whose top level calls `add` on the registries."""
    path = Path(path)
    if not path.is_file():
        raise RegistryError(f"plugin file {path} does not exist", field="--plugin")
    if path.resolve() in _plugin_files:
        return
    _plugin_files.add(path.resolve())
    _ensure_plugins_loaded()
    spec = importlib.util.spec_from_file_location(f"harness_plugin_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
