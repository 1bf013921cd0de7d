"""A suite's `aggregates:` block and its aggregate claims checked against the rest of the suite: the metric is
one of its directed quality metrics, every dataset has a normalisation and each is ordered with the metric's
direction, and a claim over an aggregate uses the block's metric (the only one with a common scale)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from harness.registry import metrics
from harness.yaml_source import YamlSource

if TYPE_CHECKING:
    from harness.suite import Suite


def check_aggregates(suite: Suite, source: YamlSource) -> None:
    block = suite.aggregates
    if block is not None:
        _check_block(suite, source)
    for index, claim in enumerate(suite.claims):
        if claim.check.aggregate is None:
            continue
        where = ("claims", index, "check", "aggregate")
        if block is None:
            raise source.error(where, "a claim over an aggregate needs the suite's 'aggregates:' block",
                               hint="Add one with the metric and each dataset's normalisation (docs/aggregates.md).")
        if claim.check.metric != block.metric:
            raise source.error(("claims", index, "check", "metric"), f"'{claim.check.metric}' is not the metric "
                               f"the suite aggregates ('{block.metric}'): only that one is normalised",
                               hint=f"Write 'metric: {block.metric}'.")


def _check_block(suite: Suite, source: YamlSource) -> None:
    block = suite.aggregates
    assert block is not None  # `check_aggregates` calls this for a block only
    if block.metric not in suite.metrics:
        raise source.error(("aggregates", "metric"), f"metric '{block.metric}' is not in this suite's metrics",
                           hint=f"Use one of: {', '.join(suite.metrics)}.")
    higher = metrics.get(block.metric, suite.family).higher_is_better
    if higher is None:
        raise source.error(("aggregates", "metric"), f"metric '{block.metric}' has no direction, so no aggregate "
                           "of it is better or worse")
    for dataset, bounds in block.normalise.items():
        if dataset not in suite.datasets:
            raise source.error(("aggregates", "normalise", dataset), f"'{dataset}' is not a dataset of this suite",
                               hint=f"Known: {', '.join(sorted(suite.datasets))}.")
        if (bounds.high > bounds.low) != higher:
            better = "higher" if higher else "lower"
            raise source.error(("aggregates", "normalise", dataset), f"'{block.metric}' is {better}-is-better, so "
                               f"its reference score 'high' must be {better} than 'low' (the random score), not "
                               f"{bounds.high} against {bounds.low}", hint="Swap them.")
    missing = [d for d in suite.datasets if d not in block.normalise]
    if missing:
        raise source.error(("aggregates", "normalise"), f"no normalisation for {', '.join(missing)}: an aggregate "
                           "pools every dataset, on one scale", hint="Give each dataset {low, high}.")
    if block.method is not None and block.method not in suite.methods:
        raise source.error(("aggregates", "method"), f"'{block.method}' is not a method of this suite",
                           hint=f"Known: {', '.join(sorted(suite.methods))}.")
