"""The "up to 13 %" check: DePO's relative SR x Sim gain with its paired bootstrap interval, and the verdict."""
from __future__ import annotations

import pandas as pd
import pytest

from methods.molecule_opt.gap import Gap, gap_section, gaps, verdict


def _runs(depo: list[float], sft: list[float]) -> pd.DataFrame:
    rows = [{"method": m, "dataset": "qed", "seed": s, "status": "ok", "metric.sr_x_sim_released": v}
            for m, values in (("depo", depo), ("sft", sft)) for s, v in enumerate(values)]
    return pd.DataFrame(rows)


def test_the_gain_is_the_ratio_of_the_means_and_its_interval_holds_it():
    [gap] = gaps(_runs([11.0, 12.0, 13.0, 11.5], [10.0, 10.0, 10.0, 10.0]), "sr_x_sim_released", ("sft", "grpo"))
    assert (gap.other, gap.dataset) == ("sft", "qed") and gap.gain == pytest.approx(18.75)
    assert gap.low <= gap.gain <= gap.high and gap.low >= 10.0 and gap.high <= 30.0


@pytest.mark.parametrize(("low", "high", "expected"), [(5, 20, "consistent"), (14, 30, "larger"), (-40, 12, "smaller")])
def test_the_verdict_places_the_interval_against_13_per_cent(low, high, expected):
    assert verdict(Gap("sft", "qed", (low + high) / 2, low, high)) == expected


def test_the_section_names_the_largest_gain():
    lines = gap_section(_runs([20.0, 21.0, 19.0], [10.0, 10.5, 9.5]), "sr_x_sim_released", ("sft",))
    assert "Largest measured gain: +100.0 % over sft on qed" in lines[-1] and "**larger**" in lines[-1]
