"""The family's metrics, from one scored run: test accuracy (the last word of each test line), dev perplexity
after the budget, steps to the dataset's dev-loss threshold, the learning curve's AUC, the spectral distance
between the source's and the initialised student's FFNs, linear CKA between their representations, and the
paper's headline measure: the student's accuracy as a share of its source's on the same test lines, raw and
above the majority-class floor (printed beside every accuracy)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from harness import Metric
from methods.model_init.measures import curve_auc, share_above_floor, source_share, steps_to_threshold


@dataclass(frozen=True)
class ScoredRun:
    accuracy: float
    steps: np.ndarray
    losses: np.ndarray
    figures: Mapping[str, float]
    threshold: float
    source_accuracy: float = float("nan")
    floor: float = float("nan")
    source_min_lead: float = float("nan")  # the source's smallest per-task-type test lead over its floor

    def figure(self, name: str) -> float:
        """A figure the method recorded; every initialiser records them all, so a missing one is a bad table."""
        if name not in self.figures:
            raise ValueError(f"the predictions table has no 'figure' row for {name!r}; it has "
                             f"{', '.join(sorted(self.figures)) or 'none'}")
        return float(self.figures[name])


ACCURACY = Metric("accuracy", lambda r: r.accuracy, higher_is_better=True,
                  description="share of test lines whose last word the student predicts (greedy)")
PERPLEXITY = Metric("perplexity", lambda r: r.figure("perplexity"), higher_is_better=False,
                    description="exp(mean next-token loss) on every dev line after the budget")
STEPS_TO_THRESHOLD = Metric("steps_to_threshold", lambda r: steps_to_threshold(r.steps, r.losses, r.threshold),
                            higher_is_better=False,
                            description="first evaluated step with dev loss <= the dataset's threshold (one "
                                        "interval past the budget if never: censored)")
LOSS_AUC = Metric("loss_auc", lambda r: curve_auc(r.steps, r.losses), higher_is_better=False,
                  description="mean dev loss over the budget (trapezoid area / steps)")
FINAL_LOSS = Metric("final_loss", lambda r: float(r.losses[-1]), higher_is_better=False,
                    description="dev loss (eval lines) at the end of the budget")
INIT_LOSS = Metric("init_loss", lambda r: float(r.losses[0]), higher_is_better=False,
                   description="dev loss (eval lines) of the initialised student before training")
SPECTRAL_DISTANCE = Metric("spectral_distance", lambda r: r.figure("spectral_distance"), higher_is_better=False,
                           description="relative L2 distance of the top singular values of each initialised "
                                       "student FFN matrix and its source layers', mean over matrices")
CKA = Metric("cka", lambda r: r.figure("cka"), higher_is_better=True,
             description="linear CKA of the trained student's and the source's last hidden states on test prompts")
SOURCE_ACCURACY = Metric("source_accuracy", lambda r: r.source_accuracy, higher_is_better=True,
                         description="the run's source model's accuracy on the same test lines (greedy)")
MAJORITY_FLOOR = Metric("majority_floor", lambda r: r.floor, higher_is_better=True,
                        description="accuracy of answering each test line with its task type's majority answer")
SOURCE_SHARE = Metric("source_share", lambda r: source_share(r.accuracy, r.source_accuracy), higher_is_better=True,
                      description="student accuracy / source accuracy on the same test lines (the paper's "
                                  "'% of the source's performance')")
SHARE_ABOVE_FLOOR = Metric("share_above_floor", lambda r: share_above_floor(r.accuracy, r.source_accuracy, r.floor),
                           higher_is_better=True,
                           description="(student accuracy - floor) / (source accuracy - floor): the share of the "
                                       "source's gain over the majority floor the student keeps")
SOURCE_MIN_LEAD = Metric("source_min_lead", lambda r: r.source_min_lead, higher_is_better=True,
                         description="the run's source's smallest lead over a scored task type's majority floor on "
                                     "its test lines (what the share is measured on is what the source can do)")
