"""The second pass's pool: 30 single-chain backbones, the 7 distinct real chains tmtools ships first, lengths in
range, and a train/test split that is disjoint, complete, seeded and holds real chains on both sides."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from methods.protein_design.backbone import Backbone
from methods.protein_design.backbone_pool import BUNDLE_LOOP, is_generated, load_pool, one_chain_bundle, split_pool

pytest.importorskip("tmtools")
pytest.importorskip("biotite")


@lru_cache(maxsize=1)
def _pool() -> tuple[Backbone, ...]:
    return load_pool().backbones


def test_the_pool_has_30_single_chain_backbones_with_the_7_real_chains_first():
    pool = _pool()
    assert len(pool) == 30 and len({b.name for b in pool}) == 30
    real = [b for b in pool if not is_generated(b)]
    assert [b.name for b in real] == ["2gtl_A", "2gtl_B", "2gtl_C", "2gtl_D", "2gtl_M", "2gtl_N", "2gtl_O"]
    assert [b.length for b in real] == [147, 145, 149, 140, 217, 220, 215]
    assert len({b.native for b in real}) == 7  # the other 8 chains of 2GTL repeat A-D and are left out
    assert all(not is_generated(b) for b in pool[:7]) and all(is_generated(b) for b in pool[7:])
    for backbone in pool:
        assert (backbone.chain == 0).all()
        assert backbone.native is not None and "X" not in backbone.native
        assert 30 <= backbone.length <= (84 if is_generated(backbone) else 250)
        assert (np.diff(backbone.numbering) >= 1).all()


def test_real_chains_are_unbroken_and_the_pool_is_the_same_every_call():
    for backbone in _pool()[:7]:
        ca = backbone.coords[:, 1]
        assert np.linalg.norm(np.diff(ca, axis=0), axis=1).max() < 4.2  # no chain break: CA-CA 3.8 A
    again = load_pool().backbones
    assert [b.name for b in again] == [b.name for b in _pool()]
    assert all(np.array_equal(a.coords, b.coords) for a, b in zip(again, _pool(), strict=True))


def test_a_one_chain_bundle_skips_a_bridgeable_loop_between_helices():
    made = one_chain_bundle(3, 20, 0)
    jumps = np.flatnonzero(np.diff(made.numbering) > 1)
    assert list(jumps) == [19, 39] and (np.diff(made.numbering)[jumps] == BUNDLE_LOOP + 1).all()
    ca = made.coords[:, 1]
    for end in jumps:  # a loop of BUNDLE_LOOP residues spans at most (BUNDLE_LOOP + 1) * 3.8 A
        assert np.linalg.norm(ca[end + 1] - ca[end]) < (BUNDLE_LOOP + 1) * 3.8


def test_the_split_is_disjoint_complete_seeded_and_keeps_real_chains_on_both_sides():
    pool = _pool()
    tests = []
    for seed in range(6):
        train, test = split_pool(pool, 20, seed)
        names_train, names_test = {b.name for b in train}, {b.name for b in test}
        assert len(train) == 20 and len(test) == 10
        assert not names_train & names_test and names_train | names_test == {b.name for b in pool}
        assert sum(not is_generated(b) for b in train) == 5 and sum(not is_generated(b) for b in test) == 2
        assert [b.name for b in split_pool(pool, 20, seed)[1]] == [b.name for b in test]
        tests.append(frozenset(names_test))
    assert len(set(tests)) == 6  # every seed holds out a different set


@pytest.mark.parametrize("train", [0, 30])
def test_a_split_that_leaves_one_side_empty_is_refused(train):  # noqa: ANN001
    with pytest.raises(ValueError, match="both sides"):
        split_pool(_pool(), train, 0)


def test_the_tasks_stratified_split_keeps_long_chains_out_of_training_and_old_splits_unchanged():
    from methods.protein_design.task import split_backbones, split_spec

    pool = _pool()
    spec = split_spec({"train": 4, "designs": 2, "stratified": True, "train_max_length": 150})
    for seed in range(4):
        train, test = split_backbones(pool, spec, seed)
        assert len(train) == 4 and len(test) == 26 and all(b.length <= 150 for b in train)
        assert sum(not is_generated(b) for b in train) == 1  # one globin; the 3 linkers are always designed
        assert {b.name for b in train} | {b.name for b in test} == {b.name for b in pool}
    plain_train, plain_test = split_backbones(pool, split_spec({"train": 4}), 3)
    order = np.random.default_rng(3).permutation(len(pool))  # the first pass's split, unchanged
    assert [b.name for b in plain_train + plain_test] == [pool[i].name for i in order]
    for bad in ({"train": 4, "train_max_length": 150}, {"train": 0, "stratified": True},
                {"train": 4, "stratified": "yes"}, {"train": 4, "folds": 2}):
        with pytest.raises(ValueError):
            split_spec(bad)
