"""A family's registrations as data: the `family.toml` beside its `__init__.py`.

A family's package calls `register_family(__name__)` and lists its tasks, datasets, metrics and methods in
the file, each under its short name with a `module:attr` target relative to the package. The names get the
family's prefix (`methods/driving` registers `driving.<name>`), a method's `task` is a short task name of the
family (or a full name) and its `params` a model in the family's torch-free `params.py`, or `module:Model` in
another torch-free module of the package, such as the method's own file (`harness:MethodParams`
when left out). Reading the file imports nothing of the family, so listing and validating stay torch-free.
"""
from __future__ import annotations

import functools
import importlib.util
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import RegistryError
from harness.registry import datasets, methods, metrics, tasks

MANIFEST = "family.toml"
NO_PARAMETERS = "harness:MethodParams"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Registration(_Strict):
    target: str = Field(pattern=r"^[\w.]+:[\w.]+$", description="`module:attr`, relative to the family's package")
    description: str = Field(min_length=1)


class MethodRegistration(Registration):
    task: str | list[str] = Field(description="the task(s) it solves: short names of the family's tasks, or full names")
    params: str | None = Field(default=None, pattern=r"^([\w.]+:)?\w+$",
                               description="its parameter model: a name in the family's params.py, or `module:Model` "
                                           "in a torch-free module of the package (the method's own file)")
    replays_user_files: str | None = Field(
        default=None, description="the test that runs it end to end: it replays a user's files, which no repeat-run "
                                  "suite under tests/repeat_runs/ can name")


class TestHooks(_Strict):
    """How tests/test_repeat_runs.py runs the family's suites under tests/repeat_runs/."""

    slow_repeat_runs: list[str] = Field(default=[], description="its suites there that train models (slow tests)")
    shares_models_of: str | None = Field(
        default=None, description="the family whose models its runs evaluate: both repetitions share that model "
                                  "cache, the training's repeatability being that family's repeat run")


class ReadmeRow(_Strict):
    """The family's row in the README's Families table (docs/gen_families_table.py); its suites come from
    `[reports]`."""

    task: str = Field(min_length=1, description="what is solved and how it is scored")
    datasets: str = Field(min_length=1, description="its loaders, generated and bring-your-own")
    methods: str = Field(min_length=1, description="its methods, the paper's in bold")


class ReportScript(_Strict):
    what: str = Field(min_length=1, description="what the lines write, for the comment above them")
    run: list[str] = Field(min_length=1, description="shell lines run after every report is written")
    reads_store: bool = Field(default=False, description="they read the store: `--from-runs` skips them")


class ReportHooks(_Strict):
    """The family's committed reports: `reports/regenerate.sh` is generated from every family's
    (docs/gen_regenerate.py)."""

    suites: list[str] = Field(default=[], description="suites whose reports are committed, in the order they run")
    validated_only: list[str] = Field(default=[], description="suites planned and validated but not reported")
    scripts: list[ReportScript] = Field(default=[], description="tables and figures written from the reports")


class FamilyManifest(_Strict):
    extra: str | None = Field(default=None, description="the pip extra whose packages the family imports")
    installed_apart: list[str] = Field(
        default=[], description="requirements installed with `pip install --no-deps` (their own pins cannot be met)")
    tasks: dict[str, Registration] = {}
    datasets: dict[str, Registration] = {}
    metrics: dict[str, Registration] = {}
    methods: dict[str, MethodRegistration] = {}
    readme: ReadmeRow | None = None
    tests: TestHooks = TestHooks()
    reports: ReportHooks = ReportHooks()


def register_family(package: str) -> None:
    """Register everything the `family.toml` of `package` (an imported package, e.g. `methods.driving`) lists."""
    path = Path(sys.modules[package].__file__ or "").parent / MANIFEST
    manifest = read_manifest(path)
    family = package.rsplit(".", 1)[-1]
    for name, entry in manifest.tasks.items():
        tasks.add(f"{family}.{name}", f"{package}.{entry.target}", entry.description)
    for name, entry in manifest.datasets.items():
        datasets.add(f"{family}.{name}", f"{package}.{entry.target}", entry.description)
    for name, entry in manifest.metrics.items():
        metrics.add(f"{family}.{name}", f"{package}.{entry.target}", entry.description)
    for name, method in manifest.methods.items():
        solves = [_task_name(family, manifest, task, path, name)
                  for task in ([method.task] if isinstance(method.task, str) else method.task)]
        params = _params_target(package, method.params)
        methods.add(f"{family}.{name}", f"{package}.{method.target}", method.description,
                    task=solves[0] if len(solves) == 1 else tuple(solves), params=params)


def _params_target(package: str, params: str | None) -> str:
    """Where a method's parameter model is: `validate` imports it, so its module must import no torch."""
    if params is None:
        return NO_PARAMETERS
    return f"{package}.{params}" if ":" in params else f"{package}.params:{params}"


class InstalledFamily(NamedTuple):
    manifest: FamilyManifest
    distribution: str   # the package that registers it, whose extras the manifest's `extra` names


@functools.cache
def installed_family(family: str) -> InstalledFamily | None:
    """The manifest of the family an installed package registers as `family` (a `harness.families` entry point),
    read without importing the family; None for a name registered otherwise (a plugin file, a per-kind group)."""
    for ep in entry_points(group="harness.families"):
        if ep.name == family:
            spec = importlib.util.find_spec(ep.value)
            folders = list(spec.submodule_search_locations or ()) if spec else []
            manifests = [Path(folder) / MANIFEST for folder in folders if (Path(folder) / MANIFEST).is_file()]
            if manifests and ep.dist is not None:
                return InstalledFamily(read_manifest(manifests[0]), ep.dist.name)
    return None


def read_manifest(path: Path) -> FamilyManifest:
    """The manifest at `path`; a `RegistryError` naming the file and the field for a malformed one."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return FamilyManifest.model_validate(data)
    except FileNotFoundError:
        raise RegistryError("no family manifest", file=path,
                            hint="A family that calls register_family lists its registrations there.") from None
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"not valid TOML: {exc}", file=path) from None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        problem = {"missing": "is missing", "extra_forbidden": "is not a key of a family manifest"}.get(
            first["type"], first["msg"][0].lower() + first["msg"][1:])
        raise RegistryError(problem, file=path, field=".".join(str(part) for part in first["loc"]),
                            hint="Each entry takes `target` and `description`; a method also `task` and "
                                 "optionally `params`.") from None


def _task_name(family: str, manifest: FamilyManifest, task: str, path: Path, method: str) -> str:
    if "." in task:
        return task
    if task in manifest.tasks:
        return f"{family}.{task}"
    raise RegistryError(f"method '{method}' solves task '{task}', which the file does not list", file=path,
                        field=f"methods.{method}.task",
                        hint=f"Name one of its [tasks] ({', '.join(manifest.tasks) or 'none'}) or a full task name.")
