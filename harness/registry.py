"""Registries of tasks, datasets, metrics, methods and executors.

Entries are lazy `module:attr` strings, so listing never imports a family's code; a method names its
parameter model the same way (`params=`), in a torch-free module, so validating and planning a suite
never import torch either. An entry is checked when it is loaded: it must be its kind's contract (a
`Task` or `Method` subclass, a `Metric`, a callable loader, an `Executor` subclass; lm-eval's `base_cls`).
Built-in families and third-party packages register the same way: through the
`harness.families` entry-point group (a module that calls `add` on import; a family's package calls
`family_manifest.register_family`, which adds what its `family.toml` lists) or through per-kind groups
(`harness.methods`, `harness.datasets`, ...) whose entries point at objects.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
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
    # The problem with a loaded object (it is not this kind's contract), or None: `Registry`'s `check`.
    check: Callable[["Entry", Any], str | None] | None = field(default=None, compare=False)

    def load(self) -> Any:
        """The registered object, imported on first use; a `RegistryError` if it is not what its kind needs."""
        obj = load_target(self.target)
        problem = self.check(self, obj) if self.check else None
        if problem:
            raise RegistryError(f"'{self.name}' {problem}", field=self.name,
                                hint="Fix its registration (the `add` call or entry point that names it).")
        return obj


def load_target(target: Any) -> Any:
    """`target` itself, or the object a lazy `module:attr` string names (imported now)."""
    if not isinstance(target, str):
        return target
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class Registry:
    """Names of one kind of thing, with did-you-mean errors for the unknown ones."""

    def __init__(self, kind: str, check: Callable[[Entry, Any], str | None] | None = None) -> None:
        self.kind = kind
        self.check = check
        self._entries: dict[str, Entry] = {}

    def add(self, name: str, target: Any, description: str, **meta: Any) -> None:
        if name in self._entries:
            raise RegistryError(
                f"{self.kind[:-1]} '{name}' is registered twice",
                hint="Rename one of them; names are global across families and plugins.",
            )
        self._entries[name] = Entry(name, target, description, dict(meta), self.check)

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


def _subclass_of(base: str) -> Callable[[Entry, Any], str | None]:
    """A check that an entry is a class derived from `base` (a `module:attr` string, imported on use)."""

    def check(entry: Entry, obj: Any) -> str | None:
        expected = load_target(base)
        if isinstance(obj, type) and issubclass(obj, expected):
            return None
        return f"is {_shown(obj)}, not a subclass of {expected.__module__}.{expected.__name__}"

    return check


def _check_method(entry: Entry, obj: Any) -> str | None:
    """A `Method` subclass whose `params_model` is the parameter model registered with it (the planner
    validates suites against the registered one, the worker builds the class with its own)."""
    problem = _subclass_of("harness.contracts:Method")(entry, obj)
    if problem:
        return problem
    if any("deterministic" in vars(k) for k in obj.__mro__):
        return ("sets `deterministic`, which is now `determinism`: say `determinism = Determinism.NO` for a method "
                "whose repeated run may differ (see harness.Determinism)")
    stale = next((k for k in obj.__mro__ if "version" in vars(k)), None)
    if stale is not None:
        return (f"sets `version` on its class {_shown(stale)}: a method's version is its params_model's "
                "(declared with its parameters, so planning reads it without importing the method)")
    if "params" not in entry.meta:
        return None
    registered = load_target(entry.meta["params"])
    if obj.params_model is not registered:
        return (f"is registered with params {_shown(registered)}, but its class declares params_model = "
                f"{_shown(obj.params_model)}")
    return None


def _check_metric(entry: Entry, obj: Any) -> str | None:
    """A `Metric` instance; the class is named, like the other checks' bases: the contracts sit above the registry."""
    return None if isinstance(obj, load_target("harness.contracts:Metric")) else \
        f"is {_shown(obj)}, not a harness.contracts.Metric"


def _check_loader(entry: Entry, obj: Any) -> str | None:
    return None if callable(obj) else f"is {_shown(obj)}, not a callable dataset loader"


def _shown(obj: Any) -> str:
    """An object in an error message: a class by its qualified name, anything else by its repr."""
    name = getattr(obj, "__qualname__", None)
    return f"{obj.__module__}.{name}" if isinstance(obj, type) and name else repr(obj)[:80]


tasks = Registry("tasks", _subclass_of("harness.contracts:Task"))
datasets = Registry("datasets", _check_loader)
metrics = Registry("metrics", _check_metric)
methods = Registry("methods", _check_method)
executors = Registry("executors", _subclass_of("harness.executors.base:Executor"))
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
    installed = entry_points()  # one scan of every distribution's metadata (each call scans them all: ~12 ms)
    for ep in installed.select(group="harness.families"):
        ep.load()
    for kind, registry in REGISTRIES.items():
        for ep in installed.select(group=f"harness.{kind}"):
            registry.add(ep.name, ep.value, f"plugin from {ep.dist.name if ep.dist else 'unknown'}")


def load_plugin_file(path: str | Path) -> None:
    """Import a user's Python file whose top level calls `add` on the registries. A plugin that cannot be
    imported (no such file, not a .py file, an exception or a `sys.exit` while it runs) is a user error naming
    the file: a plugin calling `sys.exit(0)` once ended `harness validate` silently with exit 0."""
    path = _plugin_path(Path(path))
    if path.resolve() in _plugin_files:
        return
    _plugin_files.add(path.resolve())
    _ensure_plugins_loaded()
    spec = importlib.util.spec_from_file_location(f"harness_plugin_{path.stem}", path)
    assert spec is not None and spec.loader is not None  # always, for a .py file (`_plugin_path`)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: pydantic resolves a parameter model's annotations there
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a KeyboardInterrupt is the user's, not the plugin's
        del sys.modules[spec.name]
        _plugin_files.discard(path.resolve())
        raise _plugin_failed(path, exc) from None


def _plugin_path(path: Path) -> Path:
    """`path`, checked to be a Python file before it is imported."""
    if path.is_dir():
        raise RegistryError(f"plugin {path} is a folder, not a Python file", field="--plugin",
                            hint="Give the .py file that registers the methods, datasets or metrics.")
    if not path.exists():
        raise RegistryError(f"plugin file {path} does not exist", field="--plugin", hint="Check the path.")
    if not path.is_file():
        raise RegistryError(f"plugin {path} is not a regular file", field="--plugin",
                            hint="Give the .py file that registers the methods, datasets or metrics.")
    if path.suffix != ".py":
        raise RegistryError(f"plugin file {path} is not a .py file", field="--plugin",
                            hint="A plugin is Python source imported by the harness: give its file a .py name.")
    return path


def _plugin_failed(path: Path, exc: BaseException) -> RegistryError:
    """The error for a plugin that raised `exc` while it was imported, at the plugin's line that raised."""
    if isinstance(exc, SystemExit):
        what, fix = f"called sys.exit({exc.code!r}) while it was imported", "remove the call"
    else:
        what = f"raised {type(exc).__name__} while it was imported: {exc}"
        fix = f"run `python {path}` to see its traceback"
    resolved = str(path.resolve())
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__)
             if str(Path(frame.filename).resolve()) == resolved]
    return RegistryError(f"plugin {what}", file=path, line=lines[-1] if lines else None, field="--plugin",
                         hint=f"A plugin file only defines and registers (`harness.methods.add` and the like): {fix}.")
