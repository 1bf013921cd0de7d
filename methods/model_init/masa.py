"""MASA (ICLR 2026, "Inheriting Generalizable Knowledge from LLMs to Diverse Vertical Tasks") in miniature:
gene matrices learned from the source's FFNs under output and spectral alignment (`genes.py`), reshaped by SVD
into the student's FFNs. The non-FFN weights are inherited by uniform selection of the same hidden channels (or
left random: `rest`), so the student's residual basis is the one its FFNs were cut to."""
from __future__ import annotations

from typing import Any, ClassVar

import torch

from harness import RunContext
from methods.model_init.genes import ffn_of, group_of, groups, learn_genes, neuron_leverage, reshape_ffn
from methods.model_init.inherit import evenly, inherit, uniform_plan
from methods.model_init.method import Initialiser, Origins, calibration_ids, ffn_inputs
from methods.model_init.models import model_shape
from methods.model_init.params import MasaParams
from methods.model_init.task import InitInputs


class Masa(Initialiser):
    params_model: ClassVar[type[MasaParams]] = MasaParams
    params: MasaParams

    @torch.no_grad()
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        p = self.params
        big, small = model_shape(source), model_shape(student)
        ids = calibration_ids(inputs, p.calib_tokens)
        with torch.enable_grad():
            genes = learn_genes([ffn_of(b) for b in source.model.layers], ffn_inputs(source, ids), p.genes, p.rank,
                                p.output_weight, p.spectral_weight, p.subspace_rank, p.extract_steps, p.extract_lr)
        members = groups(big.layers, p.genes)
        chosen = [group_of(j, small.layers, len(genes)) for j in range(small.layers)]
        channels = evenly(big.hidden, small.hidden)
        if p.rest == "selection":
            inherit(student, source, uniform_plan(big, small, [members[g][0] for g in chosen]), ffn=False)
        for block, g in zip(student.model.layers, chosen, strict=True):
            gene = genes[g]
            neurons = torch.topk(neuron_leverage(gene, p.rank), small.ffn).indices.sort().values
            ffn = reshape_ffn(gene, channels, neurons, p.rank)
            block.mlp.gate_proj.weight.copy_(ffn.gate)
            block.mlp.up_proj.weight.copy_(ffn.up)
            block.mlp.down_proj.weight.copy_(ffn.down)
        ctx.record("gene_groups", len(genes))
        return [members[g] for g in chosen]
