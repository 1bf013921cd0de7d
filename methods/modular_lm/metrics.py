"""The family's figures: per-domain accuracy, routing specialisation, the ablation-drop matrix and the
steering effect, as pure functions of a scored run (`ScoredRun`), and the `Metric`s over them.

A scored run is one row per (condition, test question): `condition` is `full` (the model as trained),
`remove:E` (expert E ablated: its tokens go to the next best expert) or `steer:E` (E's router logit raised);
`correct` is the scorer's verdict and `routing` (full condition only) the question's prompt tokens counted
per layer and expert. Expert E is the one MiCRo aligned with `DOMAINS[E]` (MoB's experts carry the same
index labels, aligned with nothing: its diagonal is a null reference).

Routing figures are over prompt tokens of the in-distribution test questions, per layer then averaged over
layers: the mutual information I(domain; expert) in bits (plug-in), its excess over the mean of label
permutations (domains shuffled across questions, 200 draws, fixed seed: the plug-in estimate's bias at this
sample size), the conditional entropy H(expert | domain) in bits, and purity (the share of tokens whose
expert's majority domain is their own domain).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from harness import Metric
from methods.common.corpus import DOMAINS

PERMUTATIONS = 200


@dataclass(frozen=True)
class ScoredRun:
    """Per-question rows: condition, id, domain, ood, correct (bool), routing (E-count lists per layer or None)."""

    rows: pd.DataFrame

    def accuracy(self, condition: str = "full", domain: str | None = None, ood: bool = False) -> float:
        rows = self.rows[(self.rows["condition"] == condition) & (self.rows["ood"] == ood)]
        if domain is not None:
            rows = rows[rows["domain"] == domain]
        return float("nan") if rows.empty else float(rows["correct"].mean())

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
        rows = self.rows[(self.rows["condition"] == "full") & (~self.rows["ood"])]
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


def permutation_mi(counts: np.ndarray, labels: np.ndarray, classes: int, draws: int = PERMUTATIONS,
                   seed: int = 0) -> float:
    """Mean plug-in MI with the labels shuffled across questions: what chance alone gives at this size."""
    rng = np.random.default_rng(seed)
    return float(np.mean([mutual_information(contingency(counts, rng.permutation(labels), classes))
                          for _ in range(draws)]))


def _layer_mean(run: ScoredRun, figure: str) -> float:
    tables = run.routing_tables()
    if not tables:
        return float("nan")
    labels = run.routed_domains()
    values = []
    for counts in tables:
        table = contingency(counts, labels, len(DOMAINS))
        if figure == "mi":
            values.append(mutual_information(table))
        elif figure == "mi_excess":
            values.append(mutual_information(table) - permutation_mi(counts, labels, len(DOMAINS)))
        elif figure == "entropy":
            values.append(conditional_entropy(table))
        else:
            values.append(purity(table))
    return float(np.mean(values))


def ablation_drops(run: ScoredRun) -> np.ndarray:
    """(experts, domains) accuracy drop (full minus ablated, in-distribution test) when each expert is removed;
    an empty array when the run has no ablations (a dense model)."""
    experts = sorted(int(c.split(":")[1]) for c in run.conditions() if c.startswith("remove:"))
    return np.array([[run.accuracy("full", d) - run.accuracy(f"remove:{e}", d) for d in DOMAINS]
                     for e in experts]).reshape(len(experts), len(DOMAINS))


def ablation_diagonal(run: ScoredRun) -> float:
    """Mean over the domain-aligned experts of (drop on its own domain - mean drop on the other domains): > 0
    when removing an expert hurts its own domain more than the others."""
    drops = ablation_drops(run)
    if drops.size == 0:
        return float("nan")
    size = min(drops.shape)
    return float(np.mean([drops[e, e] - np.mean(np.delete(drops[e], e)) for e in range(size)]))


def ablation_own_most(run: ScoredRun) -> float:
    """Share of domain-aligned experts whose removal hurts their own domain most (ties count as not most)."""
    drops = ablation_drops(run)
    if drops.size == 0:
        return float("nan")
    size = min(drops.shape)
    return float(np.mean([drops[e, e] > np.max(np.delete(drops[e], e)) for e in range(size)]))


def steering_effect(run: ScoredRun) -> float:
    """Mean over domains of (accuracy steered to its own expert - mean accuracy steered to each other expert)."""
    if not any(c.startswith("steer:") for c in run.conditions()):
        return float("nan")
    effects = []
    for e, domain in enumerate(DOMAINS):
        others = [run.accuracy(f"steer:{o}", domain) for o in range(len(DOMAINS)) if o != e]
        effects.append(run.accuracy(f"steer:{e}", domain) - float(np.mean(others)))
    return float(np.mean(effects))


def steering_gain(run: ScoredRun) -> float:
    """Mean over domains of (accuracy steered to its own expert - accuracy unsteered)."""
    if not any(c.startswith("steer:") for c in run.conditions()):
        return float("nan")
    return float(np.mean([run.accuracy(f"steer:{e}", d) - run.accuracy("full", d) for e, d in enumerate(DOMAINS)]))


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
    "routing_mi_excess", lambda run: _layer_mean(run, "mi_excess"), higher_is_better=True,
    description="routing MI minus its mean under shuffled domain labels (0 for a dense model: one expert)")
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
STEERING_GAIN = Metric("steering_gain", steering_gain, higher_is_better=True,
                       description="accuracy steered to a domain's own expert minus unsteered, mean over domains")
