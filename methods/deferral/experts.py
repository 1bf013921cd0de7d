"""Expert panels: synthetic experts with a known competence map (so the Bayes allocation is exact), and the
recorded answers of real experts (a bring-your-own file).

Synthetic classification experts are class specialists: expert j answers correctly with probability `strong`
on the classes c with c mod J = j and `weak` on the others, and otherwise names a wrong class uniformly at
random. Synthetic regression experts are region specialists: expert j adds Gaussian noise of standard
deviation `strong` inside the j-th of J target-quantile regions and `weak` outside it. A panel may add a
generalist, last: the same competence (accuracy, or noise std) everywhere, usually at a higher cost.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from methods.deferral.losses import loss
from methods.deferral.problem import Kind


@dataclass(frozen=True)
class Specialists:
    """Specialists, each with competence `strong` on its own group (class or region) and `weak` elsewhere, then
    an optional generalist with one competence everywhere; costs beta_j in that order."""

    strong: float
    weak: float
    costs: np.ndarray
    generalist: float | None = None
    draws: bool = field(default=True, init=False)  # answers drawn anew from the competence map

    @property
    def names(self) -> tuple[str, ...]:
        specialists = tuple(f"expert{j + 1}" for j in range(self.specialists))
        return specialists + (("generalist",) if self.generalist is not None else ())

    @property
    def specialists(self) -> int:
        return self.costs.size - (self.generalist is not None)

    def competence_map(self, own: np.ndarray) -> np.ndarray:
        """(J, G) competence per expert and group from the specialists' (J - generalist, G) own-group mask."""
        rows = np.where(own, self.strong, self.weak)
        return rows if self.generalist is None else np.vstack([rows, np.full((1, own.shape[1]), self.generalist)])


@dataclass(frozen=True)
class ClassSpecialists(Specialists):
    """Class specialists over C classes: specialist j owns the classes c with c mod J = j."""

    num_classes: int = field(kw_only=True)

    @property
    def competence(self) -> np.ndarray:
        """(J, C) probability that expert j answers a sample of class c correctly."""
        count = self.specialists
        return self.competence_map((np.arange(self.num_classes)[None, :] % count) == np.arange(count)[:, None])

    def answers(self, rows: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        correct = rng.random((y.size, self.costs.size)) < self.competence[:, y].T
        shift = rng.integers(1, self.num_classes, size=correct.shape)  # a uniformly drawn wrong class
        return np.where(correct, y[:, None], (y[:, None] + shift) % self.num_classes)

    def expected_loss(self, rows: np.ndarray, y: np.ndarray, posterior: np.ndarray | None) -> np.ndarray:
        wrong = 1.0 - self.competence  # (J, C)
        if posterior is None:
            return wrong[:, y].T
        return posterior @ wrong.T


@dataclass(frozen=True)
class RegionSpecialists(Specialists):
    """Region specialists: `strong` and `weak` are noise standard deviations. `region` holds each dataset
    row's target-quantile region, fixed by the loader from the whole target."""

    region: np.ndarray = field(kw_only=True)

    def _noise(self, rows: np.ndarray) -> np.ndarray:
        return self.competence_map(np.arange(self.specialists)[:, None] == self.region[rows][None, :]).T

    def answers(self, rows: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return y[:, None] + self._noise(rows) * rng.standard_normal((rows.size, self.costs.size))

    def expected_loss(self, rows: np.ndarray, y: np.ndarray, posterior: np.ndarray | None) -> np.ndarray:
        return self._noise(rows) ** 2


def target_regions(y: np.ndarray, count: int) -> np.ndarray:
    """Each target's quantile region among `count` equally populated ones."""
    edges = np.quantile(y, np.linspace(0, 1, count + 1)[1:-1])
    return np.searchsorted(edges, y, side="right")


@dataclass(frozen=True)
class RecordedExperts:
    """Real experts' answers read from a file: each answer is fixed, so its expected loss is its loss."""

    predictions: np.ndarray  # (n, J), rows in dataset order
    names: tuple[str, ...]
    costs: np.ndarray
    kind: Kind
    draws: bool = field(default=False, init=False)  # fixed answers: their expected loss is their loss

    def answers(self, rows: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.predictions[rows]

    def expected_loss(self, rows: np.ndarray, y: np.ndarray, posterior: np.ndarray | None) -> np.ndarray:
        return loss(self.kind, self.predictions[rows], y)
