"""A run repeated under its run key gives what its method's `determinism` promises (`harness.Determinism`):
every registered method of every family, run once in this process and once in a new interpreter (its own hash
seed, no imports, caches or trained models of this one), gives the same metric values unless it declares
`Determinism.NO` (and its reports say so); and a method that declares itself bitwise everywhere gives them once
more in an interpreter whose numpy, ATen, MKL and OpenBLAS use their baseline kernels, as an older CPU would.

The suites under tests/repeat_runs/ hold each method once at a size that runs in seconds; a method they do not
list joins the first suite of its task at its parameters' `tiny` values, so a new method needs no line there
(one gets a line where `tiny` is not the size to repeat it at). The slow ones train tiny language models, anew in
each repetition's model cache.
"""
from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import yaml

import harness
from harness.contracts import Determinism
from harness.extras import family_unavailable
from harness.family_manifest import MANIFEST, read_manifest
from harness.registry import load_target, methods
from harness.suite import load_suite
from harness.run_inputs import _DATA_CACHE

REPO = Path(__file__).resolve().parents[1]
SUITES = REPO / "tests" / "repeat_runs"
# What each family's family.toml says of its repeat runs ([tests]) and of the methods no suite here can run.
MANIFESTS = {path.parent.name: read_manifest(path) for path in sorted((REPO / "methods").glob(f"*/{MANIFEST}"))}


def _family(name: str) -> str:
    return load_suite(SUITES / f"{name}.yaml")[0].family


SLOW = tuple(sorted(name for manifest in MANIFESTS.values() for name in manifest.tests.slow_repeat_runs))
FAST = tuple(sorted(p.stem for p in SUITES.glob("*.yaml") if p.stem not in SLOW))
# Methods that replay a user's files, which no suite here can name (they live under the user's data root): each is
# tested end to end by the test its registration names.
REPLAYS_USER_FILES = {f"{family}.{name}": method.replays_user_files for family, manifest in MANIFESTS.items()
                      for name, method in manifest.methods.items() if method.replays_user_files}


def _listed_methods(name: str) -> set[str]:
    suite, _ = load_suite(SUITES / f"{name}.yaml")
    return {methods.resolve(entry.impl, suite.family) for entry in suite.methods.values() if entry.impl}


def _registered() -> set[str]:
    return {name for name in methods.names() if name.split(".", 1)[0] in MANIFESTS}  # plugins aside


@functools.cache
def _joining() -> dict[str, list[str]]:
    """Suite name -> the registered methods no suite lists that join it: the first suite of one of their tasks."""
    listed = set().union(*(_listed_methods(name) for name in (*FAST, *SLOW)), REPLAYS_USER_FILES)
    by_task: dict[str, str] = {}
    for name in sorted((*FAST, *SLOW)):
        by_task.setdefault(load_suite(SUITES / f"{name}.yaml")[0].task, name)
    joining: dict[str, list[str]] = {}
    for method in sorted(_registered() - listed):
        solves = methods.entry(method).meta["task"]
        suites = [by_task[task] for task in ([solves] if isinstance(solves, str) else solves) if task in by_task]
        if suites:
            joining.setdefault(suites[0], []).append(method)
    return joining


@functools.cache
def _suite_folder() -> Path:
    """tests/repeat_runs itself, or a copy of it where a method joins a suite (see `_joining`)."""
    if not _joining():
        return SUITES
    folder = Path(tempfile.mkdtemp(prefix="repeat-runs-"))
    for path in SUITES.glob("*.yaml"):
        text = yaml.safe_load(path.read_text())
        for method in _joining().get(path.stem, []):
            tiny = load_target(methods.entry(method).meta["params"]).tiny
            text["methods"][method.split(".", 1)[1]] = {
                "impl": method, "params": {k: [v] if isinstance(v, list) else v for k, v in tiny.items()}}
        (folder / path.name).write_text(yaml.safe_dump(text, sort_keys=False))
    return folder


def _suite_file(name: str) -> Path:
    return _suite_folder() / f"{name}.yaml"


def test_every_method_of_every_family_has_a_repeat_run():
    joined = set().union(*_joining().values())
    covered = set().union(*(_listed_methods(name) for name in (*FAST, *SLOW)), REPLAYS_USER_FILES, joined)
    assert len(MANIFESTS) >= 6 and sorted(_registered() - covered) == []
    assert all((REPO / test).is_file() for test in REPLAYS_USER_FILES.values())
    assert all((SUITES / f"{name}.yaml").is_file() for name in SLOW)


def _caches(root: Path, models: Path | None = None) -> dict[str, str]:
    """Where a repetition keeps what it generates and trains, so that neither sees the other's (but for the
    trained models in `models`, where given)."""
    return {"HARNESS_MODEL_CACHE": str(models or root / "models"), "HARNESS_DRIVING_CACHE": str(root / "driving")}


def _in_new_interpreter(names: tuple[str, ...], root: Path, models: Path | None = None,
                        kernels: dict[str, str] | None = None) -> None:
    """Run each suite into `root/<name>.sqlite` from a fresh Python process (its kernels overridden by `kernels`)."""
    script = ("import sys, harness\n"
              "suites, root = sys.argv[1], sys.argv[2]\n"
              "for name in sys.argv[3:]:\n"
              "    harness.run(f'{suites}/{name}.yaml', store=f'{root}/{name}.sqlite', executor='inline')\n")
    env = {**os.environ, **_caches(root, models), "PYTHONHASHSEED": "random", **(kernels or {})}
    done = subprocess.run([sys.executable, "-c", script, str(_suite_folder()), str(root), *names], env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]


def _here(name: str, root: Path, monkeypatch: pytest.MonkeyPatch, models: Path | None = None) -> pd.DataFrame:
    """The suite run in this process, its data and models (but for those in `models`) made anew."""
    for variable, value in _caches(root, models).items():
        monkeypatch.setenv(variable, value)
    _DATA_CACHE.clear()
    return harness.run(_suite_file(name), store=root / f"{name}.sqlite", executor="inline")


def _stored(name: str, root: Path) -> pd.DataFrame:
    """The suite's runs stored under `root` (all of them are: nothing runs again)."""
    return harness.run(_suite_file(name), store=root / f"{name}.sqlite", executor="inline")


@pytest.fixture(scope="module")
def fresh_fast(tmp_path_factory) -> Path:
    """The fast suites, run once from a new interpreter together (one interpreter start for all)."""
    root = tmp_path_factory.mktemp("fresh")
    available = tuple(name for name in FAST if _unavailable(name) is None)
    _in_new_interpreter(available, root)
    return root


def _unavailable(name: str) -> str | None:
    """Why the suite's family cannot run here (its extra is absent), or None."""
    suite, _ = load_suite(SUITES / f"{name}.yaml")
    return family_unavailable(suite.family)


def _declaring(name: str, scopes: frozenset[Determinism]) -> set[str]:
    """The suite's method labels whose method declares one of `scopes`."""
    suite, _ = load_suite(_suite_file(name))
    return {label for label, entry in suite.methods.items()
            if methods.get(methods.resolve(entry.impl, suite.family)).determinism in scopes}


def _assert_same_metrics(name: str, here: pd.DataFrame, fresh: pd.DataFrame,
                         may_differ: frozenset[Determinism] = frozenset({Determinism.NO})) -> None:
    """Every run of a method whose scope is not in `may_differ` has the same metric values on both sides."""
    assert set(here["status"]) == {"ok"} == set(fresh["status"]), here[["method", "status", "error"]].to_string()
    declared = _declaring(name, may_differ)
    columns = [c for c in here.columns if c.startswith("metric.")]
    assert sorted(here["run_key"]) == sorted(fresh["run_key"])
    fresh = fresh.set_index("run_key")
    differing = []
    for _, row in here.iterrows():
        again = fresh.loc[row["run_key"]]
        for column in columns:
            a, b = row[column], again[column]
            if not (a == b or (pd.isna(a) and pd.isna(b))) and row["method"] not in declared:
                differing.append(f"{row['method']} {column}: {a!r} then {b!r}")
    assert not differing, "\n".join(differing)


@pytest.mark.parametrize("name", FAST)
def test_a_repeated_run_gives_the_same_metrics(name, fresh_fast, tmp_path, monkeypatch):
    if reason := _unavailable(name):
        pytest.skip(reason)
    _assert_same_metrics(name, _here(name, tmp_path, monkeypatch), _stored(name, fresh_fast))


def baseline_kernels() -> dict[str, str]:
    """Variables that make numpy, ATen, MKL and OpenBLAS run their baseline x86-64 kernels instead of the ones
    this CPU dispatches to: the reduction orders of another CPU, on this one."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    dispatched = [feature for feature in __cpu_dispatch__ if __cpu_features__.get(feature)]
    return {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "OPENBLAS_CORETYPE": "Nehalem",
            "NPY_DISABLE_CPU_FEATURES": " ".join(dispatched)}


EVERYWHERE = tuple(name for name in FAST
                   if _unavailable(name) is None and _declaring(name, frozenset({Determinism.EVERYWHERE})))


@pytest.mark.parametrize("name", EVERYWHERE)
def test_a_method_bitwise_everywhere_gives_the_same_metrics_with_another_cpus_kernels(name, fresh_fast, tmp_path):
    if reason := _unavailable(name):
        pytest.skip(reason)
    _in_new_interpreter((name,), tmp_path, kernels=baseline_kernels())
    other, here = _stored(name, tmp_path), _stored(name, fresh_fast)
    assert set(other["numerics_fingerprint"]).isdisjoint(here["numerics_fingerprint"])  # the override took effect
    _assert_same_metrics(name, other, here, may_differ=frozenset({Determinism.NO, Determinism.PER_NUMERICS}))


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_a_repeated_run_that_trains_its_model_gives_the_same_metrics(name, tmp_path, monkeypatch):
    if reason := _unavailable(name):
        pytest.skip(reason)
    shares = MANIFESTS[_family(name)].tests.shares_models_of is not None
    models = tmp_path / "shared-models" if shares else None
    _in_new_interpreter((name,), tmp_path / "fresh", models)
    here = _here(name, tmp_path / "here", monkeypatch, models)
    _assert_same_metrics(name, here, _stored(name, tmp_path / "fresh"))


def test_a_shared_model_has_its_training_repeated_by_the_family_that_trains_it():
    trainers = {manifest.tests.shares_models_of for manifest in MANIFESTS.values()} - {None}
    assert trainers <= {_family(name) for name in SLOW}
