"""Expand a suite into runs: methods x parameter grid x datasets x seeds.

Each run gets a `run_key` hashing everything that changes its answer (task, method
name + version + resolved parameters, dataset fingerprint, metric versions, seed,
harness major version, and the thread count when it is not 1), so a stored run is
recognised and skipped on the next `run`. The machine is not hashed: the record's
hardware fingerprint says which kind of CPU or GPU computed the answer.

The number of runs is counted from the grid sizes before anything is expanded, and a suite over
`harness.limits.max_runs` is refused (`check_run_count`): `validate` and `plan` stay instant where the
expansion itself would not end.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import HARNESS_MAJOR
from harness.dataset_files import ResolvedDataset, is_path_arg, resolve_dataset, under_root
from harness.errors import DataError, HarnessError
from harness.extras import family_unavailable
from harness.fingerprint import digest, file_sha256
from harness.limits import MAX_RUNS_ENV, max_runs
from harness.method_params import InvalidParams, MethodParams, declared_params, defaults, validate
from harness.run_spec import RunSpec
from harness.registry import datasets, methods, metrics, tasks
from harness.suite import MethodEntry, Suite
from harness.yaml_source import YamlSource

MAX_GRID_POINTS = 10_000  # per method entry: far above any paper's sweep, far below a plan that never ends


def plan(suite: Suite, source: YamlSource, root: Path) -> list[RunSpec]:
    """All runs of the suite, in a stable order (method, grid point, dataset, seed)."""
    check_run_count(suite, source)
    family = suite.family
    task = tasks.resolve(suite.task)
    resolved = {name: _resolve_dataset(suite, source, name, root) for name in suite.datasets}
    metric_names = {m: metrics.resolve(m, family) for m in suite.metrics}
    metric_versions = {m: metrics.get(full).version for m, full in metric_names.items()}
    runs: list[RunSpec] = []
    seen: dict[str, RunSpec] = {}
    for entry_name, entry in suite.methods.items():
        for label, impl, version, params in method_variants(suite, source, entry_name, entry):
            for dataset_name, dataset in resolved.items():
                if not in_matrix(suite, entry_name, dataset_name):
                    continue
                run_params = _on_dataset(source, entry_name, entry, impl, params, dataset_name)
                for seed in suite.defaults.seeds:
                    predictions_file = _predictions_file(source, entry, entry_name, dataset_name, seed)
                    execution = {
                        "task": task, "method": impl or "predictions", "version": version, "params": run_params,
                        "predictions": file_sha256(Path(predictions_file)) if predictions_file else None,
                        "dataset": dataset.fingerprint, "seed": seed, "harness": HARNESS_MAJOR,
                    } | _threads(suite)
                    scoring = {"names": metric_names, "versions": metric_versions}
                    run = RunSpec(
                        run_key=digest(execution | {"metrics": scoring}), exec_key=digest(execution),
                        suite=suite.suite, task=task, method=label,
                        method_entry=entry_name, impl=impl, method_version=version, params=run_params,
                        predictions_file=predictions_file, dataset=dataset, metrics=metric_names,
                        metric_versions=metric_versions, seed=seed, device=suite.defaults.device,
                        timeout=suite.defaults.timeout, threads=suite.defaults.threads,
                        resources=entry.resources or suite.defaults.resources,
                    )
                    if run.run_key in seen:
                        other = seen[run.run_key]
                        raise source.error(
                            ("methods", entry_name),
                            f"method '{label}' is the same run as '{other.method}' "
                            "(same implementation and parameters)",
                            hint="Remove one of the two entries.",
                        )
                    seen[run.run_key] = run
                    runs.append(run)
    if not runs:
        raise source.error(("matrix",), "the suite plans no runs", hint="Check matrix include/exclude rules.")
    return runs


def planned_run_count(suite: Suite) -> int:
    """How many runs `plan` makes of `suite` (before refusing duplicates), from the grid sizes alone."""
    total = 0
    for name, entry in suite.methods.items():
        points = math.prod(len(values) for values in entry.params.values() if isinstance(values, list))
        total += points * sum(in_matrix(suite, name, dataset) for dataset in suite.datasets)
    return total * len(suite.defaults.seeds)


def check_run_count(suite: Suite, source: YamlSource) -> None:
    """A `SuiteError` when the suite plans more runs than `max_runs()`, saying how many and how to raise the cap."""
    count, limit = planned_run_count(suite), max_runs()
    if count > limit:
        raise source.error(("methods",), f"the suite plans {count:,} runs (each method's grid points x its "
                           f"datasets x seeds), over the cap of {limit:,}",
                           hint=f"Give the grids, datasets or seeds fewer values, or split the suite; if you mean "
                                f"to run them all, raise the cap with {MAX_RUNS_ENV}={count}.")


def _threads(suite: Suite) -> dict[str, int]:
    """Threads split CPU reductions otherwise (PRISM on ENZYMES, 10 epochs: 31.7 % on 1 thread, 30.0 % on 2), so
    a count other than 1 enters the key; 1, the default, stays out: keys planned before threads counted hold."""
    threads = suite.defaults.threads
    return {} if threads == 1 else {"threads": threads}


def check_split(suite: Suite, source: YamlSource, name: str) -> None:
    """The task's verdict on a dataset's `split:` block, as a positioned suite error."""
    try:
        tasks.get(suite.task)().check_split(suite.datasets[name].split)
    except ValueError as exc:
        raise source.error(("datasets", name, "split"), str(exc)) from None


def check_dataset(suite: Suite, source: YamlSource, name: str, root: Path) -> None:
    """The task's own check of a dataset's loader arguments (`Task.check_dataset`), errors placed at its `args`.
    Skipped where the family's extra is absent: the check may read its packages, and `run` refuses the suite."""
    if family_unavailable(suite.family):
        return
    entry = suite.datasets[name]
    try:
        args = {key: str(under_root(name, key, value, root)) if is_path_arg(key) else value
                for key, value in entry.args.items()}
        tasks.get(suite.task)().check_dataset(datasets.resolve(entry.loader, suite.family), args)
    except DataError as exc:
        exc.file = exc.file or source.path
        exc.line = exc.line or source.position(("datasets", name, "args"))[0]
        raise


def _resolve_dataset(suite: Suite, source: YamlSource, name: str, root: Path) -> ResolvedDataset:
    entry = suite.datasets[name]
    loader = datasets.resolve(entry.loader, suite.family)
    check_split(suite, source, name)
    check_dataset(suite, source, name, root)
    try:
        return resolve_dataset(name, loader, entry.args, entry.split, root)
    except DataError as exc:
        exc.file = exc.file or source.path
        exc.line = exc.line or source.position(("datasets", name, "args"))[0]
        raise
    except (OSError, ValueError) as exc:  # e.g. /proc/self: a folder whose files cannot be read for the fingerprint
        raise source.error(("datasets", name, "args"), f"dataset '{name}': its files cannot be read ({exc})",
                           hint="Point the path argument at a regular data file, or a folder of them.") from None


def method_variants(suite: Suite, source: YamlSource, name: str,
                    entry: MethodEntry) -> Iterator[tuple[str, str | None, str, dict[str, Any]]]:
    """(label, impl, version, resolved params) for each grid point of one method entry, each point checked
    against the method's declared parameters."""
    if entry.impl is None:
        yield name, None, "1", {}
        return
    impl = methods.resolve(entry.impl, suite.family)
    model = declared_params(impl)
    grid_axes = {k: v for k, v in entry.params.items() if isinstance(v, list)}
    fixed = {k: v for k, v in entry.params.items() if not isinstance(v, list)}
    points = math.prod(len(values) for values in grid_axes.values())
    if points > MAX_GRID_POINTS:
        raise source.error(("methods", name, "params"), f"the grid has {points:,} points, over {MAX_GRID_POINTS:,}",
                           hint="Give the list-valued parameters fewer values, or split the entry.")
    for indices in itertools.product(*(range(len(values)) for values in grid_axes.values())):
        chosen = {k: grid_axes[k][i] for k, i in zip(grid_axes, indices, strict=True)} | fixed
        at = {k: ("methods", name, "params", k, i) for k, i in zip(grid_axes, indices, strict=True)}
        _check_params(source, ("methods", name, "params"), at, impl, model, chosen, f"invalid parameters for '{impl}'")
        shown = [k for k, v in grid_axes.items() if len(v) > 1]
        label = name + ("[" + ",".join(f"{k}={chosen[k]}" for k in shown) + "]" if shown else "")
        yield label, impl, model.version, defaults(model) | chosen


def _on_dataset(source: YamlSource, name: str, entry: MethodEntry, impl: str | None, params: dict[str, Any],
                dataset: str) -> dict[str, Any]:
    """A grid point's parameters with the entry's `dataset_params` for `dataset` applied, checked."""
    overrides = entry.dataset_params.get(dataset)
    if not overrides:
        return params
    assert impl is not None  # a predictions entry has no parameters to override (the suite schema)
    merged = params | overrides
    _check_params(source, ("methods", name, "dataset_params", dataset), {}, impl, declared_params(impl), merged,
                  f"invalid parameters for '{impl}' on '{dataset}'")
    return merged


def _check_params(source: YamlSource, block: tuple[Any, ...], at: dict[str, tuple[Any, ...]], impl: str,
                  model: type[MethodParams], values: dict[str, Any], context: str) -> None:
    """A `SuiteError` at the offending value (`at`: a grid value's own position; else `block`'s key) unless
    `values` are valid parameters of `impl`: the parameter, what is wrong, and what it takes."""
    unknown = sorted(set(values) - set(model.model_fields))
    if unknown:
        raise source.error(at.get(unknown[0], block + (unknown[0],)),
                           f"method '{impl}' has no parameter '{unknown[0]}'",
                           hint=f"Its parameters: {', '.join(model.model_fields) or 'none'}.")
    try:
        validate(model, values)
    except InvalidParams as exc:
        where = block if exc.parameter is None else at.get(exc.parameter, block + (exc.parameter,))
        raise source.error(where, f"{context}: {exc.reason}", hint=exc.hint) from None


def in_matrix(suite: Suite, method: str, dataset: str) -> bool:
    """Whether the suite's matrix rules pair the method entry with the dataset."""

    def matches(rule) -> bool:  # noqa: ANN001
        return rule.method in (None, method) and rule.dataset in (None, dataset)

    included = not suite.matrix.include or any(matches(r) for r in suite.matrix.include)
    return included and not any(matches(r) for r in suite.matrix.exclude)


def _predictions_file(source: YamlSource, entry: MethodEntry, method: str, dataset: str, seed: int) -> str | None:
    """The predictions file of one BYO run; relative templates are relative to the suite file."""
    if entry.predictions is None:
        return None
    path = Path(entry.predictions.format(method=method, dataset=dataset, seed=seed))  # checked by the schema
    path = path if path.is_absolute() else source.path.parent / path
    if not _is_file(path):
        raise HarnessError(f"predictions file {path} does not exist", file=source.path,
                           line=source.position(("methods", method, "predictions"))[0],
                           field=f"methods.{method}.predictions",
                           hint="Write one Parquet file per (method, dataset, seed) at the template's path.")
    return str(path.absolute())


def _is_file(path: Path) -> bool:
    """`Path.is_file`, false too for a name longer than the system allows (it raises ENAMETOOLONG)."""
    try:
        return path.is_file()
    except OSError:
        return False
