"""A suite's `aggregates:` block and its aggregate claims: each mistake names the file, the line and the fix."""
from __future__ import annotations

import pytest

TOY = """\
schema_version: 1
suite: toy
task: toy.sign
defaults: {{seeds: [0, 1, 2]}}
datasets:
  easy: {{loader: numbers}}
  hard: {{loader: numbers, args: {{shift: 0.2}}}}
metrics: [accuracy]
methods:
  thr: {{impl: threshold}}
  other: {{impl: threshold, params: {{t: 0.5}}}}
{claims}aggregates:
  metric: {metric}
  normalise:
    easy: {{low: 50, high: 100}}
    {hard}
  method: {method}
"""
GOOD = {"claims": "", "metric": "accuracy", "hard": "hard: {low: 50, high: 100}", "method": "thr"}
AGGREGATE_CLAIM = "claims: [{text: t, check: {metric: accuracy, better: thr, than: other, aggregate: iqm}}]\n"


def test_a_suite_with_aggregates_and_an_aggregate_claim_validates(cli, write_suite):
    code, out, err = cli("validate", str(write_suite(TOY.format(**{**GOOD, "claims": AGGREGATE_CLAIM}))))
    assert code == 0, err
    assert "undecidable" not in err  # three seeds: a Wilcoxon claim would warn, an interval one does not


@pytest.mark.parametrize(("change", "line", "message"), [
    ({"hard": "hardd: {low: 50, high: 100}"}, 16, "'hardd' is not a dataset of this suite"),
    ({"hard": "hard: {low: 50, high: 50}"}, 16, "low and high are both 50.0"),
    ({"hard": "hard: {low: 100, high: 50}"}, 16, "its reference score 'high' must be higher than 'low'"),
    ({"hard": ""}, 14, "no normalisation for hard"),
    ({"metric": "f1"}, 13, "metric 'f1' is not in this suite's metrics"),
    ({"method": "thx"}, 17, "'thx' is not a method of this suite"),
    ({"claims": AGGREGATE_CLAIM.replace("metric: accuracy", "metric: wall_s")}, 12,
     "'wall_s' is not the metric the suite aggregates ('accuracy')"),
    ({"claims": AGGREGATE_CLAIM.replace("aggregate: iqm", "aggregate: iqr")}, 12, "claims.0.check.aggregate"),
    ({"claims": AGGREGATE_CLAIM.replace("aggregate: iqm", "aggregate: iqm, dataset: easy")}, 12,
     "it takes neither 'dataset' nor 'at_matched'"),
])
def test_a_bad_aggregates_block_or_claim_names_its_line(cli, write_suite, change, line, message):
    path = write_suite(TOY.format(**{**GOOD, **change}))
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert f"{path}:{line}:" in err and message in err and "Traceback" not in err


def test_an_aggregate_claim_needs_the_aggregates_block(cli, write_suite):
    text = TOY.format(**{**GOOD, "claims": AGGREGATE_CLAIM}).split("aggregates:")[0]
    path = write_suite(text)
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert f"{path}:12:" in err and "needs the suite's 'aggregates:' block" in err


DRIVING = """\
schema_version: 1
suite: planning
task: driving.open_loop_planning
datasets:
  scenes_a: {{loader: generated_scenes, args: {{num_scenes: 2, keyframes: 10, seed: 0}}}}
metrics: [l2_avg_stp3]
methods:
  constant_velocity: {{impl: constant_velocity}}
aggregates:
  metric: l2_avg_stp3
  normalise:
    scenes_a: {{low: {low}, high: {high}}}
"""


def test_a_lower_is_better_metric_needs_its_reference_score_below_its_random_one(cli, write_suite):
    code, _, err = cli("validate", str(write_suite(DRIVING.format(low=5.0, high=0.5))), plugin=False)
    assert code == 0, err
    path = write_suite(DRIVING.format(low=0.5, high=5.0))
    code, _, err = cli("validate", str(path), plugin=False)
    assert code == 3
    assert f"{path}:12:" in err and "lower-is-better, so its reference score 'high' must be lower" in err
