"""The family's metrics, functions of a predictions table (one row per checkpoint of a training run, or per
epoch of the non-stationary classifier). The area under the return curve is the harness's own trapezoid rule
(harness.curve_metrics), the figure a suite's `curve_metrics` would give."""
from __future__ import annotations

from functools import partial

import pandas as pd

from harness import Metric
from harness.curve_metrics import area_under_curve
from harness.curves import Curve


def final_value(table: pd.DataFrame, column: str) -> float:
    return float(table[column].iloc[-1])


def return_auc(table: pd.DataFrame) -> float:
    """Mean return over training: the trapezoid area under the return curve from the first checkpoint to the
    last, divided by that range (sample efficiency); the last return for a one-checkpoint run."""
    if len(table) == 1:
        return final_value(table, "return")
    return area_under_curve(Curve.of("return", table["step"], table["return"]), normalise=True)


def step_milliseconds(table: pd.DataFrame) -> float:
    """Wall time per environment step over the whole run, training and probes (one torch thread)."""
    return 1000.0 * final_value(table, "seconds") / final_value(table, "step")


def phase_accuracy(table: pd.DataFrame) -> float:
    """Mean over label phases of the training accuracy at each phase's last epoch: how well the network
    still fits each new labelling (plasticity)."""
    return float(table.groupby("phase")["accuracy"].last().mean())


FINAL_RETURN = Metric("final_return", partial(final_value, column="return"), higher_is_better=True,
                      description="training return at the last checkpoint (mean of the last 10 episodes)")
RETURN_AUC = Metric("return_auc", return_auc, higher_is_better=True,
                    description="area under the return curve over the budget / its range: mean return in training")
DORMANT_ACTOR, DORMANT_CRITIC = (
    Metric(f"dormant_{net}", partial(final_value, column=f"dormant_{net}"), higher_is_better=False, unit="share",
           description=f"tau-dormant share (tau 0.025) of the {net}'s penultimate units at the last checkpoint")
    for net in ("actor", "critic"))
SRANK_ACTOR, SRANK_CRITIC = (
    Metric(f"srank_{net}", partial(final_value, column=f"srank_{net}"), higher_is_better=True,
           description=f"srank (delta 0.01) of the {net}'s penultimate features at the last checkpoint")
    for net in ("actor", "critic"))
# A timing read from the run's own checkpoints (its `seconds` column), so it is scored like the other table
# metrics (a "hardware" metric is read from the harness's measurements instead); no CI rule gates it.
STEP_MS = Metric("step_ms", step_milliseconds, higher_is_better=False, unit="ms", timing=True,
                 description="wall time per environment step, training and probes, one torch thread")
PHASE_ACCURACY = Metric("phase_accuracy", phase_accuracy, higher_is_better=True, unit="%",
                        description="mean end-of-phase training accuracy over the label phases")
LAST_PHASE_ACCURACY = Metric("last_phase_accuracy", partial(final_value, column="accuracy"), higher_is_better=True,
                             unit="%", description="training accuracy at the end of the last label phase")
DORMANT = Metric("dormant", partial(final_value, column="dormant"), higher_is_better=False, unit="share",
                 description="tau-dormant share of the penultimate units after the last phase")
SRANK = Metric("srank", partial(final_value, column="srank"), higher_is_better=True,
               description="srank of the penultimate features after the last phase")
