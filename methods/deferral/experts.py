"""Expert panels: synthetic experts with a known competence map (so the Bayes allocation is exact), and the
recorded answers of real experts (a bring-your-own file).

Synthetic classification experts are class specialists: expert j answers correctly with probability `strong`
on the classes c with c mod J = j and `weak` on the others, and otherwise names a wrong class uniformly at
random. Synthetic regression experts are region specialists: expert j adds Gaussian noise of standard
deviation `strong` inside the j-th of J target-quantile regions and `weak` outside it. A panel may add a
generalist, last: the same competence (accuracy, or noise std) everywhere, usually at a higher cost.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from methods.deferral.losses import loss
from methods.deferral.problem import Kind


def _expert_names(count: int, generalist: float | None) -> tuple[str, ...]:
    specialists = count - (generalist is not None)
    return tuple(f"expert{j + 1}" for j in range(specialists)) + (("generalist",) if generalist is not None else ())


def _specialist_map(own: np.ndarray, strong: float, weak: float, generalist: float | None) -> np.ndarray:
    """Competence per (expert, group) from a specialists' (J, G) own-group mask, the generalist's row last."""
    rows = np.where(own, strong, weak)
    return rows if generalist is None else np.vstack([rows, np.full((1, own.shape[1]), generalist)])


@dataclass(frozen=True)
class ClassSpecialists:
    """Class specialists over C classes (and an optional generalist, last) with costs beta_j."""

    num_classes: int
    strong: float
    weak: float
    costs: np.ndarray
    generalist: float | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return _expert_names(self.costs.size, self.generalist)

    @property
    def competence(self) -> np.ndarray:
        """(J, C) probability that expert j answers a sample of class c correctly."""
        count = self.costs.size - (self.generalist is not None)
        own = (np.arange(self.num_classes)[None, :] % count) == np.arange(count)[:, None]
        return _specialist_map(own, self.strong, self.weak, self.generalist)

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
class RegionSpecialists:
    """Region specialists: noise std `strong` in their own target-quantile region, `weak` elsewhere (and an
    optional generalist, last). `region` holds each dataset row's region, fixed by the loader from the target."""

    region: np.ndarray
    strong: float
    weak: float
    costs: np.ndarray
    generalist: float | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return _expert_names(self.costs.size, self.generalist)

    def _noise(self, rows: np.ndarray) -> np.ndarray:
        count = self.costs.size - (self.generalist is not None)
        own = np.arange(count)[:, None] == self.region[rows][None, :]
        return _specialist_map(own, self.strong, self.weak, self.generalist).T

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

    def answers(self, rows: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.predictions[rows]

    def expected_loss(self, rows: np.ndarray, y: np.ndarray, posterior: np.ndarray | None) -> np.ndarray:
        return loss(self.kind, self.predictions[rows], y)
