"""Designers for the HP lattice toy: the reference policy (independent positions, P(H) = 1/2), the exact
optimum (the sequence of highest fold probability among all 2^n) and the same preference-alignment loop as
on ProteinMPNN (methods.protein_design.dpo) with a per-position Bernoulli policy per target; its objectives are
the log fold probability (designability) and the polar fraction (the developability analogue)."""
from __future__ import annotations

import numpy as np

from harness import Method, RunContext
from methods.protein_design.dpo import dpo_loss, preference_pairs
from methods.protein_design.hp_lattice import all_sequences, lattice
from methods.protein_design.hp_task import HPDesigns, HPTargets
from methods.protein_design.params import HPAlignmentParams


class HPReference(Method):
    def run(self, inputs: HPTargets, ctx: RunContext) -> HPDesigns:
        rng = np.random.default_rng(ctx.seed)
        return HPDesigns({t: rng.integers(0, 2, (inputs.designs, inputs.n)) for t in inputs.targets})


class HPExhaustive(Method):
    """The exact best sequence of each target by fold probability, for every design: the upper bound of any
    method's mean fold probability."""

    def run(self, inputs: HPTargets, ctx: RunContext) -> HPDesigns:
        grid, candidates = lattice(inputs.n), all_sequences(inputs.n)
        best = {}
        for target in inputs.targets:
            fold = grid.fold_probability(candidates, target, inputs.temperature)
            best[target] = np.repeat(candidates[int(np.argmax(fold))][None], inputs.designs, axis=0)
        return HPDesigns(best)


class HPAlignment(Method[HPAlignmentParams]):
    def run(self, inputs: HPTargets, ctx: RunContext) -> HPDesigns:
        import torch

        torch.manual_seed(ctx.seed)
        p = self.params
        rng = np.random.default_rng(ctx.seed)
        grid = lattice(inputs.n)
        weights = np.array([p.w_designability, p.w_developability])
        designs, curve = {}, np.zeros(p.rounds)
        for target in inputs.targets:
            logits = torch.zeros(inputs.n, requires_grad=True)
            optimiser = torch.optim.Adam([logits], lr=p.lr)
            for round_ in range(p.rounds):
                with torch.no_grad():
                    drawn = (rng.random((p.samples, inputs.n)) < torch.sigmoid(logits).numpy()).astype(np.int64)
                fold = grid.fold_probability(drawn, target, inputs.temperature)
                curve[round_] += fold.mean() / len(inputs.targets)
                if round_ == 0 or p.online:
                    scores = np.column_stack([np.log(fold + 1e-12), 1 - drawn.mean(axis=1)])
                    pairs = preference_pairs(scores, weights, p.margin)
                    chosen = torch.as_tensor(drawn, dtype=torch.float32)
                for _ in range(p.epochs):
                    logp = (chosen * torch.nn.functional.logsigmoid(logits)
                            + (1 - chosen) * torch.nn.functional.logsigmoid(-logits)).sum(dim=1)
                    ref = torch.full_like(logp, -inputs.n * float(np.log(2)))
                    won, lost = torch.as_tensor(pairs.winners), torch.as_tensor(pairs.losers)
                    loss = dpo_loss(logp[won], logp[lost], ref[won], ref[lost], p.beta,
                                    torch.as_tensor(pairs.margins, dtype=torch.float32))
                    optimiser.zero_grad()
                    loss.backward()
                    optimiser.step()
            with torch.no_grad():
                probability = torch.sigmoid(logits).numpy()
            designs[target] = (rng.random((inputs.designs, inputs.n)) < probability).astype(np.int64)
        ctx.record_curve("sampled_fold_probability", range(1, p.rounds + 1), 100 * curve, "%", higher_is_better=True)
        return HPDesigns(designs)
