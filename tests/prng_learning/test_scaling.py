"""The √m verdict script on synthetic runs: an exact √m law gives slope 1/2 and a 'supported' verdict, a censored jump
'not supported'; censored positions are counted."""
from __future__ import annotations

import numpy as np
import pandas as pd

from methods.prng_learning.scaling import report, seed_slopes


def runs(position: callable, seeds: int = 6) -> pd.DataFrame:  # type: ignore[valid-type]
    rows = []
    for k in (5, 6, 7):
        for seed in range(seeds):
            pos = position(k, seed)
            rows.append({"status": "ok", "method": "decoder", "dataset": f"m{k}", "seed": seed,
                         "metric.accuracy": 0.9, "metric.final_accuracy": 1.0, "metric.pos_90": pos,
                         "metric.pos_99": pos + 1, "measure.train_seconds": 10.0, "measure.parameters": 1000})
    rows.append({"status": "ok", "method": "chance", "dataset": "m5", "seed": 0, "metric.pos_90": 32})
    return pd.DataFrame(rows)


def test_an_exact_square_root_law_has_slope_one_half() -> None:
    table = runs(lambda k, seed: 2 ** (k / 2) * (1 + 0.01 * seed))
    from methods.prng_learning.scaling import decoder_runs

    slopes = seed_slopes(decoder_runs(table))
    assert np.allclose(slopes, 0.5)
    text = report(table, 32)
    assert "**supported**" in text.split("## Verdict")[1].splitlines()[2]


def test_a_flat_law_is_not_supported() -> None:
    rng = np.random.default_rng(0)
    text = report(runs(lambda k, seed: 10 + rng.normal(0, 0.1)), 32)
    assert "**not supported**" in text


def test_censored_positions_leave_the_law_undetermined_and_are_counted() -> None:
    rng = np.random.default_rng(0)
    table = runs(lambda k, seed: 10 + rng.normal(0, 0.1) if k < 7 else 32.0)
    text = report(table, 32)
    assert "**not determined**: 6 of 18" in text
    assert "| 0.9 | 2^5, 2^6 | 6 |" in text  # the uncensored moduli's own fit
    assert "| 2^7 | 32 | 6 |" in text and text.split("| 2^7 | 32 | 6 |")[1].splitlines()[0].rstrip().endswith("| 6 |")


def test_each_run_is_censored_at_its_own_sequence_length() -> None:
    # m = 2^7 ran 64 numbers and reached 0.9 at 40: not censored, though above the fallback 32
    table = runs(lambda k, seed: 10.0 * (1 + 0.01 * seed) if k < 7 else 40.0 + seed)
    table["measure.sequence_length"] = np.where(table["dataset"] == "m7", 64, 32)
    text = report(table, 32)
    assert "| 2^7 | 64 | 6 |" in text and "not determined" not in text
