"""A suite's registered names checked: task, loaders, metrics and methods exist, and each method serves the
suite's task, with did-you-mean hints and the file position of the offending name."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.errors import RegistryError
from harness.measure import HARDWARE_MEASURES
from harness.registry import datasets, methods, metrics, tasks
from harness.suite_aggregates import check_aggregates
from harness.yaml_source import YamlSource

if TYPE_CHECKING:
    from harness.suite import Suite


def check_names(suite: Suite, source: YamlSource) -> None:
    family = suite.family
    _resolve(source, ("task",), lambda: tasks.resolve(suite.task))
    for name, entry in suite.datasets.items():
        _resolve(source, ("datasets", name, "loader"), lambda e=entry: datasets.resolve(e.loader, family))
    for index, metric in enumerate(suite.metrics):
        _resolve(source, ("metrics", index), lambda m=metric: metrics.resolve(m, family))
    for name, method in suite.methods.items():
        if method.impl is None:
            continue
        full = _resolve(source, ("methods", name, "impl"), lambda m=method: methods.resolve(m.impl, family))
        solves = methods.entry(full).meta.get("task")  # one task name, or a tuple of the tasks it serves
        solved = (solves,) if isinstance(solves, str) else tuple(solves or ())
        if solved and tasks.resolve(suite.task) not in solved:
            served = " and ".join(f"'{t}'" for t in solved)
            raise source.error(("methods", name, "impl"), f"method '{full}' solves task {served}, not '{suite.task}'")
    known = {"method": set(suite.methods), "dataset": set(suite.datasets)}
    for name, method in suite.methods.items():
        for dataset in method.dataset_params:
            if dataset not in known["dataset"]:
                raise source.error(("methods", name, "dataset_params", dataset),
                                   f"'{dataset}' is not a dataset of this suite",
                                   hint=f"Known: {', '.join(sorted(known['dataset']))}.")
    for block in ("include", "exclude"):
        for index, rule in enumerate(getattr(suite.matrix, block)):
            for axis in ("method", "dataset"):
                value = getattr(rule, axis)
                if value is not None and value not in known[axis]:
                    raise source.error(("matrix", block, index, axis), f"'{value}' is not a {axis} of this suite",
                                       hint=f"Known: {', '.join(sorted(known[axis]))}.")
    for name in suite.curve_metrics:
        if name in suite.metrics or name in suite.report.measures:
            raise source.error(("curve_metrics", name), f"'{name}' is already a metric or report measure of this "
                               "suite", hint="Give the curve metric a name of its own.")
    metric_names = set(suite.metrics) | set(suite.curve_metrics)
    ruled = [*suite.metrics, *suite.curve_metrics, *HARDWARE_MEASURES, *suite.report.measures]
    for index, rule in enumerate(suite.regression.rules):
        if rule.metric not in ruled:
            raise source.error(("regression", "rules", index, "metric"), f"'{rule.metric}' is neither a metric of "
                               "this suite, a hardware measure nor one of its report measures, so `compare` would "
                               "refuse the rule", hint=f"Rules can name: {', '.join(ruled)}.")
    for index, ref in enumerate(suite.references):
        if ref.metric not in metric_names | set(suite.report.measures):
            raise source.error(("references", index, "metric"), f"metric '{ref.metric}' is neither in this suite's "
                               "metrics nor in its report measures")
    for index, tradeoff in enumerate(suite.report.tradeoffs):
        for key in ("x", "y"):
            if getattr(tradeoff, key) not in metric_names | set(suite.report.measures):
                raise source.error(("report", "tradeoffs", index, key), f"'{getattr(tradeoff, key)}' is neither a "
                                   "metric of this suite nor one of its report measures")
    for metric in suite.report.cells:
        if metric not in metric_names:
            raise source.error(("report", "cells", metric), f"metric '{metric}' is not in this suite's metrics",
                               hint=f"Use one of: {', '.join(suite.metrics)}.")
    if suite.report.metric is not None and suite.report.metric not in metric_names:
        raise source.error(("report", "metric"), f"metric '{suite.report.metric}' is not in this suite's metrics",
                           hint=f"Use one of: {', '.join(suite.metrics)}.")
    for index, claim in enumerate(suite.claims):
        for key in ("best", "better", "than"):
            value = getattr(claim.check, key)
            if value is not None and not _names_method(value, suite.methods):
                raise source.error(("claims", index, "check", key), f"'{value}' is not a method of this suite",
                                   hint="Name a method, or one of its variants as reports label it "
                                        "(method[param=value]).")
        matched = claim.check.at_matched
        if matched is not None and matched not in metric_names:
            raise source.error(("claims", index, "check", "at_matched"), f"metric '{matched}' is not in this suite's "
                               "metrics", hint=f"Use one of: {', '.join(suite.metrics)}.")
        select_by = claim.check.select_by
        if select_by in metric_names:
            raise source.error(("claims", index, "check", "select_by"), f"'{select_by}' is a test metric "
                               "of this suite: choosing a variant on test data flatters it",
                               hint="Select on a validation figure the methods record (e.g. best_val_auprc).")
        if select_by is not None and select_by not in suite.report.measures:
            raise source.error(("claims", index, "check", "select_by"), f"'{select_by}' is not in the report's "
                               "measures", hint="List it under report.measures, so the report shows what chose "
                                                "each variant.")
    check_aggregates(suite, source)


def _names_method(value: str, names: dict[str, Any]) -> bool:
    """A suite method's name, or one of its grid variants as reports label it (`name[param=value]`)."""
    return value in names or (value.endswith("]") and any(value.startswith(f"{name}[") for name in names))


def _resolve(source: YamlSource, loc: tuple[Any, ...], resolve: Any) -> str:
    try:
        return resolve()
    except RegistryError as exc:
        raise source.error(loc, exc.message, hint=f"{exc.hint} To use your own, register it in a Python file and "
                                                  "pass that file with --plugin FILE.py.") from None
