"""Generated and bundled problems with synthetic experts: scikit-learn's bundled sets (nothing downloads) and
Gaussian mixtures whose exact posterior P(y | x) is known. Every problem gets a panel of J class (or region)
specialists with costs beta_j (methods.deferral.experts), so the Bayes allocation and the regret are exact."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness import DataError
from methods.deferral.experts import ClassSpecialists, RegionSpecialists, target_regions
from methods.deferral.problem import DeferralProblem, ExpertPanel, Kind

BUNDLED: dict[str, Kind] = {"digits": "classification", "wine": "classification",
                            "breast_cancer": "classification", "diabetes": "regression"}
# Specialists' accuracy on their own / other classes, and their noise std on their own / other region.
DEFAULT_COMPETENCE = {"classification": (0.9, 0.5), "regression": (0.3, 1.0)}
MAX_BUDGETS = 3  # the *_at_budget_1..3 metrics


def checked_budgets(budgets: Sequence[float] | None) -> tuple[float, ...]:
    """A dataset's consultation budgets (mean summed beta per query) for the *_at_budget_* metrics, checked."""
    values = tuple(budgets or ())
    if len(values) > MAX_BUDGETS or any(isinstance(b, bool) or not isinstance(b, (int, float)) or b < 0
                                        for b in values):
        raise DataError(f"budgets must list at most {MAX_BUDGETS} non-negative numbers, got {budgets!r}",
                        field="budgets")
    return tuple(float(b) for b in values)


def specialist_panel(kind: Kind, y: np.ndarray, experts: int, strong: float | None, weak: float | None,
                     costs: Sequence[float] | None, generalist: float | None = None,
                     generalist_cost: float = 0.2) -> ExpertPanel:
    """J specialists with the given competence (defaults: DEFAULT_COMPETENCE) and costs (default: evenly
    from 0.03 to 0.09), and a generalist of competence `generalist` (an accuracy, or a noise std) when given."""
    if isinstance(experts, bool) or not isinstance(experts, int) or experts < 1:
        raise DataError(f"experts must be a positive integer, got {experts!r}", field="experts")
    beta = np.linspace(0.03, 0.09, experts) if costs is None else np.asarray(costs, dtype=np.float64)
    if beta.shape != (experts,) or (beta < 0).any():
        raise DataError(f"costs must list {experts} non-negative numbers, one per expert, got {costs!r}", field="costs")
    if generalist is not None:
        if generalist_cost < 0:
            raise DataError(f"generalist_cost must be >= 0, got {generalist_cost}", field="generalist_cost")
        beta = np.append(beta, generalist_cost)
    default_strong, default_weak = DEFAULT_COMPETENCE[kind]
    strong = default_strong if strong is None else strong
    weak = default_weak if weak is None else weak
    if kind == "classification":
        if not all(0 <= value <= 1 for value in (strong, weak, generalist if generalist is not None else 0)):
            raise DataError(f"strong, weak and generalist are accuracies in [0, 1], got {strong}, {weak} and "
                            f"{generalist}", field="strong")
        return ClassSpecialists(strong, weak, beta, generalist, num_classes=int(y.max()) + 1)
    if min(strong, weak, generalist if generalist is not None else 0) < 0:
        raise DataError(f"strong, weak and generalist are noise standard deviations >= 0, got {strong}, {weak} and "
                        f"{generalist}", field="strong")
    return RegionSpecialists(strong, weak, beta, generalist, region=target_regions(y, experts))


def load_bundled(name: str, experts: int = 4, strong: float | None = None, weak: float | None = None,
                 costs: Sequence[float] | None = None, generalist: float | None = None, generalist_cost: float = 0.2,
                 model_cost: float = 0.0, budgets: Sequence[float] | None = None) -> DeferralProblem:
    """A scikit-learn bundled set (digits, wine, breast_cancer; diabetes for regression, its target
    standardised) with a panel of synthetic specialists."""
    from sklearn import datasets as sklearn_datasets

    if name not in BUNDLED:
        raise DataError(f"no bundled dataset {name!r}; choose one of {', '.join(BUNDLED)}", field="name")
    bunch = getattr(sklearn_datasets, f"load_{name}")()
    kind = BUNDLED[name]
    x = np.asarray(bunch.data, dtype=np.float64)
    y = bunch.target.astype(np.int64) if kind == "classification" else _standardised(bunch.target)
    panel = specialist_panel(kind, y, experts, strong, weak, costs, generalist, generalist_cost)
    return DeferralProblem(name, kind, x, y, panel, model_cost, budgets=checked_budgets(budgets))


def _standardised(target: np.ndarray) -> np.ndarray:
    target = np.asarray(target, dtype=np.float64)
    return (target - target.mean()) / target.std()


def gaussian_mixture(num_samples: int = 1200, num_classes: int = 6, dims: int = 8, separation: float = 3.0,
                     experts: int = 4, strong: float | None = None, weak: float | None = None,
                     costs: Sequence[float] | None = None, generalist: float | None = None,
                     generalist_cost: float = 0.2, model_cost: float = 0.0, seed: int = 0,
                     budgets: Sequence[float] | None = None) -> DeferralProblem:
    """One unit-variance Gaussian per class, equally likely, class means drawn with typical distance
    `separation`; the exact posterior P(y | x) comes with the samples, so the expected costs are exact."""
    if num_samples < 4 * num_classes or num_classes < 2 or dims < 1:
        raise DataError(f"need num_classes >= 2, dims >= 1 and num_samples >= 4 * num_classes, got {num_classes}, "
                        f"{dims} and {num_samples}", field="num_samples")
    rng = np.random.default_rng(seed)
    means = rng.standard_normal((num_classes, dims)) * separation / np.sqrt(2 * dims)
    y = rng.permutation(np.arange(num_samples) % num_classes)
    x = means[y] + rng.standard_normal((num_samples, dims))
    log_density = -0.5 * ((x[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    posterior = np.exp(log_density - log_density.max(axis=1, keepdims=True))
    posterior /= posterior.sum(axis=1, keepdims=True)
    panel = specialist_panel("classification", y, experts, strong, weak, costs, generalist, generalist_cost)
    return DeferralProblem(f"mixture-{num_classes}x{dims}", "classification", x, y, panel, model_cost, posterior,
                           budgets=checked_budgets(budgets))
