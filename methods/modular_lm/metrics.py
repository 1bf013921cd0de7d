"""The family's figures: per-domain accuracy, routing specialisation, the ablation-drop matrix and the
steering effect, as pure functions of a scored run (`ScoredRun`), and the `Metric`s over them.

A scored run is one row per (condition, test question): `condition` is `full` (the model as trained),
`remove:E` (expert E ablated: its tokens go to the next best expert) or `steer:E` (E's router logit raised);
`correct` is the scorer's verdict and `routing` (full condition only) the question's prompt tokens counted
per layer and expert. Expert E is the one MiCRo aligned with `DOMAINS[E]` (MoB's experts carry the same
index labels, aligned with nothing: its diagonal is a null reference).

Routing figures are over prompt tokens of the in-distribution test questions (text no model trained on), per
layer then averaged over layers: the mutual information I(domain; expert) in bits (plug-in), its excess over the
mean of label permutations (domains shuffled across questions, 200 draws, fixed seed: the plug-in estimate's bias
at this sample size) and the permutation p-value of the layer-mean MI, the conditional entropy H(expert | domain)
in bits, and purity (the share of tokens whose expert's majority domain is their own domain).

An expert's own domain, for the ablation and steering figures, is the one its routing serves: the one-to-one
assignment of experts to domains that keeps the most prompt tokens on their domain's expert (pooled over layers;
Hungarian). A label-routed MiCRo's experts keep their label's domain when routing follows the labels; an
unsupervised mixture's experts get the domains they came to serve; MoB's are aligned the same way (the null).
Rows with a `reasoning` kind (held-out multi-step items) count only in the reasoning accuracies.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness import Metric
from methods.common.corpus import DOMAINS
from methods.modular_lm.reasoning import KINDS

PERMUTATIONS = 200


@dataclass(frozen=True)
class ScoredRun:
    """Per-question rows: condition, id, domain, ood, correct (bool), routing (E-count lists per layer or None)."""

    rows: pd.DataFrame

    def accuracy(self, condition: str = "full", domain: str | None = None, ood: bool = False) -> float:
        rows = self._corpus()
        rows = rows[(rows["condition"] == condition) & (rows["ood"] == ood)]
        if domain is not None:
            rows = rows[rows["domain"] == domain]
        return float("nan") if rows.empty else float(rows["correct"].mean())

    def reasoning_accuracy(self, kind: str | None = None) -> float:
        """Accuracy on the held-out multi-step items of `kind` (all kinds: None), as trained."""
        rows = self.rows[(self.rows["condition"] == "full") & (self.rows["reasoning"] != "")]
        if kind is not None:
            rows = rows[rows["reasoning"] == kind]
        return float("nan") if rows.empty else float(rows["correct"].mean())

    def _corpus(self) -> pd.DataFrame:
        return self.rows[self.rows["reasoning"] == ""]

    def conditions(self) -> set[str]:
        return set(self.rows["condition"])

    def routing_tables(self) -> list[np.ndarray]:
        """Per layer, (questions, E) token counts of the in-distribution full-condition rows with routing."""
        rows = self._routed()
        if rows.empty:
            return []
        counts = np.asarray(list(rows["routing"]), dtype=np.float64)  # (questions, layers, E)
        return [counts[:, layer, :] for layer in range(counts.shape[1])]

    def routed_domains(self) -> np.ndarray:
        return np.asarray([DOMAINS.index(d) if d in DOMAINS else -1 for d in self._routed()["domain"]])

    def _routed(self) -> pd.DataFrame:
        rows = self._corpus()
        rows = rows[(rows["condition"] == "full") & (~rows["ood"])]
        return rows[rows["routing"].notna()]


def contingency(counts: np.ndarray, labels: np.ndarray, classes: int) -> np.ndarray:
    """(classes, E) token counts per (label, expert) from per-question counts (questions, E)."""
    table = np.zeros((classes, counts.shape[1]))
    np.add.at(table, labels, counts)
    return table


def mutual_information(table: np.ndarray) -> float:
    """Plug-in I(row; column) in bits of a count table (0 for an empty one, or one with a single used row or column:
    exactly, not up to rounding)."""
    total = table.sum()
    if total == 0 or (table.sum(axis=0) > 0).sum() < 2 or (table.sum(axis=1) > 0).sum() < 2:
        return 0.0
    joint = table / total
    outer = joint.sum(axis=1, keepdims=True) @ joint.sum(axis=0, keepdims=True)
    nonzero = joint > 0
    return max(0.0, float(np.sum(joint[nonzero] * np.log2(joint[nonzero] / outer[nonzero]))))


def conditional_entropy(table: np.ndarray) -> float:
    """H(column | row) in bits: 0 when each row's tokens all go to one column."""
    total = table.sum()
    rows = table.sum(axis=1)
    entropy = 0.0
    for row, mass in zip(table, rows, strict=True):
        if mass > 0:
            p = row[row > 0] / mass
            entropy -= mass / total * float(np.sum(p * np.log2(p)))
    return entropy


def purity(table: np.ndarray) -> float:
    """sum over experts of its majority label's tokens / all tokens: 1 when every expert serves one label."""
    total = table.sum()
    return float("nan") if total == 0 else float(table.max(axis=0).sum() / total)


def permuted_layer_mi(tables: list[np.ndarray], labels: np.ndarray, classes: int, draws: int = PERMUTATIONS,
                      seed: int = 0) -> np.ndarray:
    """(draws, layers) plug-in MI with the labels shuffled across questions (one shuffle for all layers of a
    draw): what chance alone gives at this sample size."""
    rng = np.random.default_rng(seed)
    out = np.empty((draws, len(tables)))
    for draw in range(draws):
        shuffled = rng.permutation(labels)
        out[draw] = [mutual_information(contingency(counts, shuffled, classes)) for counts in tables]
    return out


def _layer_figures(run: ScoredRun, figure: str) -> list[float]:
    labels = run.routed_domains()
    tables = [contingency(counts, labels, len(DOMAINS)) for counts in run.routing_tables()]
    return [{"mi": mutual_information, "entropy": conditional_entropy, "purity": purity}[figure](t) for t in tables]


def _layer_mean(run: ScoredRun, figure: str) -> float:
    values = _layer_figures(run, figure)
    return float(np.mean(values)) if values else float("nan")


def _permutation(run: ScoredRun, figure: str) -> float:
    """The layer-mean MI's excess over its permutation mean, or its permutation p-value ((1 + draws at or above
    it) / (1 + draws))."""
    observed = _layer_figures(run, "mi")
    if not observed:
        return float("nan")
    null = permuted_layer_mi(run.routing_tables(), run.routed_domains(), len(DOMAINS)).mean(axis=1)
    if figure == "excess":
        return float(np.mean(observed) - null.mean())
    return float((1 + np.sum(null >= np.mean(observed) - 1e-12)) / (1 + len(null)))


def own_experts(run: ScoredRun) -> np.ndarray:
    """Per domain, the expert whose routing serves it (one-to-one, most tokens kept; pooled over layers)."""
    from scipy.optimize import linear_sum_assignment

    labels = run.routed_domains()
    pooled = sum(contingency(counts, labels, len(DOMAINS)) for counts in run.routing_tables())
    domains, experts = linear_sum_assignment(np.asarray(pooled), maximize=True)
    return experts[np.argsort(domains)]


def ablation_drops(run: ScoredRun) -> np.ndarray:
    """(experts, domains) accuracy drop (full minus ablated, in-distribution test) when each expert is removed;
    an empty array when the run has no ablations (a dense model)."""
    experts = sorted(int(c.split(":")[1]) for c in run.conditions() if c.startswith("remove:"))
    return np.array([[run.accuracy("full", d) - run.accuracy(f"remove:{e}", d) for d in DOMAINS]
                     for e in experts]).reshape(len(experts), len(DOMAINS))


def _own_and_other_drops(run: ScoredRun) -> list[tuple[float, np.ndarray]]:
    """Per domain: the drop when its own expert is removed, and the drops that removal causes elsewhere."""
    drops = ablation_drops(run)
    if drops.size == 0:
        return []
    return [(drops[e, d], np.delete(drops[e], d)) for d, e in enumerate(own_experts(run))]


def ablation_diagonal(run: ScoredRun) -> float:
    """Mean over domains of (drop on the domain when its own expert is removed - mean drop that removal causes
    on the other domains): > 0 when removing an expert hurts its own domain more than the others."""
    pairs = _own_and_other_drops(run)
    return float(np.mean([own - others.mean() for own, others in pairs])) if pairs else float("nan")


def ablation_own_most(run: ScoredRun) -> float:
    """Share of experts whose removal hurts their own domain most (ties count as not most)."""
    pairs = _own_and_other_drops(run)
    return float(np.mean([own > others.max() for own, others in pairs])) if pairs else float("nan")


def steering_effect(run: ScoredRun) -> float:
    """Mean over domains of (accuracy steered to its own expert - mean accuracy steered to each other expert)."""
    if not any(c.startswith("steer:") for c in run.conditions()):
        return float("nan")
    effects = []
    for domain, e in zip(DOMAINS, own_experts(run), strict=True):
        others = [run.accuracy(f"steer:{o}", domain) for o in range(len(DOMAINS)) if o != e]
        effects.append(run.accuracy(f"steer:{e}", domain) - float(np.mean(others)))
    return float(np.mean(effects))


def steering_gain(run: ScoredRun) -> float:
    """Mean over domains of (accuracy steered to its own expert - accuracy unsteered)."""
    if not any(c.startswith("steer:") for c in run.conditions()):
        return float("nan")
    return float(np.mean([run.accuracy(f"steer:{e}", d) - run.accuracy("full", d)
                          for d, e in zip(DOMAINS, own_experts(run), strict=True)]))


def _domain_metric(domain: str) -> Metric:
    return Metric(f"acc_{domain}", lambda run: run.accuracy("full", domain), higher_is_better=True,
                  description=f"accuracy on the {domain} domain's in-distribution test questions")


ACCURACY = Metric("accuracy", lambda run: run.accuracy("full"), higher_is_better=True,
                  description="accuracy on the in-distribution test questions (all domains; a user's whole file)")
ACCURACY_OOD = Metric("accuracy_ood", lambda run: run.accuracy("full", ood=True), higher_is_better=True,
                      description="accuracy on the held-out-template test questions (all domains)")
ACC_LOGIC, ACC_SOCIAL, ACC_WORLD, ACC_LANGUAGE = (_domain_metric(d) for d in DOMAINS)
ROUTING_MI = Metric("routing_mi", lambda run: _layer_mean(run, "mi"), higher_is_better=True,
                    description="I(domain; expert) in bits over prompt tokens, mean over layers (plug-in)")
ROUTING_MI_EXCESS = Metric(
    "routing_mi_excess", lambda run: _permutation(run, "excess"), higher_is_better=True,
    description="routing MI minus its mean under shuffled domain labels (0 for a dense model: one expert)")
ROUTING_MI_P = Metric(
    "routing_mi_p", lambda run: _permutation(run, "p"), higher_is_better=False,
    description="permutation p-value of the routing MI (200 shufflings of the domain labels; 1 for a dense model)")
ROUTING_ENTROPY = Metric("routing_entropy", lambda run: _layer_mean(run, "entropy"), higher_is_better=False,
                         description="H(expert | domain) in bits, mean over layers (0: each domain to one expert)")
ROUTING_PURITY = Metric("routing_purity", lambda run: _layer_mean(run, "purity"), higher_is_better=True,
                        description="share of tokens on an expert whose majority domain is theirs, mean over layers")
ABLATION_DIAGONAL = Metric(
    "ablation_diagonal", ablation_diagonal, higher_is_better=True,
    description="mean over experts of (own-domain accuracy drop - mean other-domain drop) when it is removed")
ABLATION_OWN_MOST = Metric("ablation_own_most", ablation_own_most, higher_is_better=True,
                           description="share of experts whose removal hurts their own domain most")
STEERING_EFFECT = Metric(
    "steering_effect", steering_effect, higher_is_better=True,
    description="accuracy steered to a domain's own expert minus steered to the others, mean over domains")
REASONING = Metric("reasoning", lambda run: run.reasoning_accuracy(), higher_is_better=True,
                   description="accuracy on the held-out multi-step items (all kinds), exact match of the final answer")
REASON_ARITHMETIC, REASON_DEDUCTION, REASON_SOCIAL, REASON_LANGUAGE = (
    Metric(f"reason_{kind}", lambda run, kind=kind: run.reasoning_accuracy(kind), higher_is_better=True,
           description=f"accuracy on the held-out multi-step {kind} items") for kind in KINDS)
STEERING_GAIN = Metric("steering_gain", steering_gain, higher_is_better=True,
                       description="accuracy steered to a domain's own expert minus unsteered, mean over domains")
