"""The family's data types: a loaded problem, what a deferral method sees, its answer, and the hidden truth.

Entities are the fixed model (entity 0, the two-stage setting of Mao et al., 2023) and the experts
(entities 1..J). Consulting entity j costs beta_j; its loss on a sample is the 0-1 loss (classification)
or the squared error on the standardised target (regression).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

Kind = Literal["classification", "regression"]
MODEL = "model"


class ExpertPanel(Protocol):
    """Experts with a known competence map: how they answer, and their exact expected loss given x."""

    @property
    def names(self) -> tuple[str, ...]:
        """One per expert, in column order."""

    @property
    def costs(self) -> np.ndarray:
        """(J,) beta_j"""

    @property
    def draws(self) -> bool:
        """True: answers are drawn anew, right with the competence map's probability and otherwise a wrong
        label drawn uniformly (classification) or the target plus zero-mean noise (regression); False: fixed."""

    def answers(self, rows: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(len(rows), J) predictions of each expert on the dataset rows `rows` whose labels are `y`."""

    def expected_loss(self, rows: np.ndarray, y: np.ndarray, posterior: np.ndarray | None) -> np.ndarray:
        """(len(rows), J) E[loss_j | x]: exact under the panel's competence map and the posterior P(y | x)
        (None: the label is a function of x, as in a dataset holding each x once)."""


@dataclass(frozen=True)
class DeferralProblem:
    """What a loader returns: samples, their labels, a panel of experts and, when known, P(y | x)."""

    name: str
    kind: Kind
    x: np.ndarray              # (n, d) float
    y: np.ndarray              # (n,) int labels 0..C-1, or float targets
    panel: ExpertPanel
    model_cost: float = 0.0    # beta_0, the fixed model's cost per query
    posterior: np.ndarray | None = None  # (n, C) exact P(y | x) (generated mixtures); None: y is a function of x
    ids: np.ndarray | None = None        # the file's sample ids (bring-your-own), else row numbers
    budgets: tuple[float, ...] = ()      # mean consultation costs the *_at_budget_* metrics read the curve at

    @property
    def num_classes(self) -> int:
        return int(self.y.max()) + 1 if self.kind == "classification" else 0

    @property
    def sample_ids(self) -> np.ndarray:
        """The ids as texts, as the predictions table's `sample` column holds them (a file's may be names)."""
        return (np.arange(self.y.size) if self.ids is None else self.ids).astype(str)


@dataclass(frozen=True)
class Part:
    """One part of the split as a deferral method sees it: features, label and every entity's answer."""

    x: np.ndarray            # (n, d) standardised features
    y: np.ndarray            # (n,)
    answers: np.ndarray      # (n, E) entity answers (column 0: the fixed model)
    model_output: np.ndarray  # (n, C) the model's class probabilities, or (n, 1) its regression prediction


@dataclass(frozen=True)
class AllocationInputs:
    """What a deferral method may see: labelled train, selector and validation parts, the test features with
    the fixed model's outputs (the model answers every query), entity names and costs. The train part trains
    scorers, the selector part Top-k(x)'s selector alone, the validation part sets thresholds and scores
    variants. `test_expected_costs` (the exact E[c_j | x]) and `test_best_sets` (the set of any size with the
    lowest exact expected cost, `set_costs`) are for the Bayes oracle alone (`hide_test_labels` randomises them)."""

    kind: Kind
    num_classes: int
    entities: tuple[str, ...]
    costs: np.ndarray          # (E,) beta per entity, model first
    train: Part
    selector: Part
    val: Part
    test_x: np.ndarray
    test_model_output: np.ndarray
    test_expected_costs: np.ndarray  # (n_test, E)
    test_best_sets: np.ndarray       # bool (n_test, E)

    @property
    def num_entities(self) -> int:
        return len(self.entities)


@dataclass(frozen=True)
class Allocation:
    """A method's answer: for P operating points (the first is the method as configured, the others trace its
    accuracy-cost curve), which entities each test sample consults and their vote weights. `model_answer`
    replaces the fixed model's answers when the method has its own predictor (one-stage L2D)."""

    consulted: np.ndarray      # bool (P, n_test, E)
    weights: np.ndarray        # float (P, n_test, E), >= 0, positive on some consulted entity of each sample
    model_answer: np.ndarray | None = None  # (n_test,)


@dataclass(frozen=True)
class AllocationTruth:
    """What only scoring sees."""

    kind: Kind
    num_classes: int
    entities: tuple[str, ...]
    costs: np.ndarray
    sample: np.ndarray            # (n_test,) sample ids
    y: np.ndarray                 # (n_test,)
    answers: np.ndarray           # (n_test, E) entity answers (column 0: the fixed model)
    expert_expected_loss: np.ndarray  # (n_test, J) exact E[loss_j | x]
    posterior: np.ndarray | None  # (n_test, C) or None (labels are functions of x)
    expert_class_loss: np.ndarray | None = None  # (n_test, C, J) E[loss_j | x, y = c], with a posterior
    answers_drawn: bool = True    # the panel's `draws`: expert answers are random given y (else fixed)
    budgets: tuple[float, ...] = ()
