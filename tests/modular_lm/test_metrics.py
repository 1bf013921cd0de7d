"""Routing and ablation figures on hand-built runs: perfect specialisation, none, and known ablation patterns."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from methods.common.corpus import DOMAINS
from methods.modular_lm.reasoning import KINDS
from methods.modular_lm.metrics import (
    ABLATION_DIAGONAL, ABLATION_OWN_MOST, ROUTING_ENTROPY, ROUTING_MI, ROUTING_MI_EXCESS, ROUTING_MI_P, ROUTING_PURITY,
    STEERING_EFFECT, ScoredRun, ablation_drops, conditional_entropy, mutual_information, purity)


def scored(rows) -> ScoredRun:
    """Rows (condition, id, domain, ood, correct, routing) of the corpus's questions (no reasoning kind)."""
    frame = pd.DataFrame(rows, columns=["condition", "id", "domain", "ood", "correct", "routing"])
    return ScoredRun(frame.assign(reasoning=""))


def routed_run(route) -> ScoredRun:
    """Ten questions per domain, each with 5 prompt tokens in 2 layers routed by `route(domain index, question)`."""
    rows = []
    for d, domain in enumerate(DOMAINS):
        for q in range(10):
            counts = [0, 0, 0, 0]
            counts[route(d, q)] = 5
            rows.append(("full", f"{domain}-{q}", domain, False, True, [counts, counts]))
    return scored(rows)


def test_perfect_routing_has_two_bits_zero_entropy_full_purity():
    run = routed_run(lambda d, q: d)
    assert ROUTING_MI(run) == pytest.approx(2.0)
    assert ROUTING_ENTROPY(run) == pytest.approx(0.0)
    assert ROUTING_PURITY(run) == pytest.approx(1.0)
    assert ROUTING_MI_EXCESS(run) > 1.5


def test_routing_blind_to_the_domain_has_no_information():
    run = routed_run(lambda d, q: q % 4)
    assert ROUTING_MI(run) == pytest.approx(0.0, abs=1e-12)
    assert ROUTING_ENTROPY(run) > 1.9
    assert ROUTING_MI_EXCESS(run) < 0  # the plug-in estimate under shuffling is biased upward


def test_a_dense_model_single_expert_has_exactly_zero_excess():
    rows = [("full", f"{d}-{q}", d, False, True, [[7], [7]]) for d in DOMAINS for q in range(5)]
    run = scored(rows)
    assert ROUTING_MI_EXCESS(run) == 0.0
    assert np.isnan(ABLATION_DIAGONAL(run)) and np.isnan(STEERING_EFFECT(run))


def test_information_entropy_purity_identities():
    rng = np.random.default_rng(0)
    table = rng.integers(0, 20, size=(4, 4)).astype(float)
    p = table / table.sum()
    h_expert = -np.sum(p.sum(0) * np.log2(p.sum(0)))
    assert mutual_information(table) == pytest.approx(h_expert - conditional_entropy(table))
    assert 0.25 <= purity(table) <= 1.0


def ablated_run(drop, route=lambda d: d) -> ScoredRun:
    """100 questions per domain, all correct in full, routed to expert route(d); removing expert e makes
    drop(e, d) of domain d wrong."""
    rows = []
    for condition in ["full", *(f"remove:{e}" for e in range(4))]:
        for d, domain in enumerate(DOMAINS):
            wrong = 0 if condition == "full" else round(100 * drop(int(condition[-1]), d))
            counts = [[5 if e == route(d) else 0 for e in range(4)]] if condition == "full" else None
            rows += [(condition, f"{domain}-{i}", domain, False, i >= wrong, counts) for i in range(100)]
    return scored(rows)


def test_a_diagonal_ablation_matrix():
    run = ablated_run(lambda e, d: 0.5 if e == d else 0.1)
    np.testing.assert_allclose(ablation_drops(run), np.where(np.eye(4) > 0, 0.5, 0.1))
    assert ABLATION_DIAGONAL(run) == pytest.approx(0.4)
    assert ABLATION_OWN_MOST(run) == 1.0


def test_an_off_diagonal_ablation_matrix_is_negative():
    run = ablated_run(lambda e, d: 0.4 if d == (e + 1) % 4 else 0.0)
    assert ABLATION_DIAGONAL(run) == pytest.approx(-0.4 / 3)
    assert ABLATION_OWN_MOST(run) == 0.0


def test_an_expert_own_domain_is_the_one_its_routing_serves():
    """Experts trained without labels serve domains in any order: expert d + 1 takes domain d's tokens, and its
    removal hurts domain d most, so the diagonal is read through the routing, not the index."""
    run = ablated_run(lambda e, d: 0.5 if e == (d + 1) % 4 else 0.1, route=lambda d: (d + 1) % 4)
    assert ABLATION_DIAGONAL(run) == pytest.approx(0.4)
    assert ABLATION_OWN_MOST(run) == 1.0


def test_permutation_p_value_separates_specialised_from_blind_routing():
    assert ROUTING_MI_P(routed_run(lambda d, q: d)) == pytest.approx(1 / 201)
    assert ROUTING_MI_P(routed_run(lambda d, q: q % 4)) > 0.5


def test_reasoning_items_count_only_in_the_reasoning_accuracies():
    rows = [("full", f"{d}-{q}", d, False, True, None) for d in DOMAINS for q in range(4)]
    frame = pd.DataFrame(rows, columns=["condition", "id", "domain", "ood", "correct", "routing"]).assign(reasoning="")
    items = pd.DataFrame([("full", f"reason-{k}-0", "logic", True, k == "arithmetic", None, k) for k in KINDS],
                         columns=[*frame.columns])
    run = ScoredRun(pd.concat([frame, items], ignore_index=True))
    assert run.accuracy() == 1.0 and run.accuracy(ood=True) != run.accuracy(ood=True)  # nan: no held-out template
    assert run.reasoning_accuracy("arithmetic") == 1.0 and run.reasoning_accuracy("deduction") == 0.0
    assert run.reasoning_accuracy() == pytest.approx(1 / len(KINDS))
