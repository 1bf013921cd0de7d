"""USplat4D (Guo, Hsu, Ding, Zhang, "Uncertainty Matters in Dynamic Gaussian Splatting for Monocular 4D
Reconstruction", arXiv 2510.12768; spec shared/papers/usplat4d.md) on top of the uniform base model.

The base is fitted first (`pretrain_steps`, as `uniform`); then Eq. 3/5/6 give every Gaussian's uncertainty
from the training-view blending weights, the least uncertain become key nodes joined by a kNN graph (Eq. 7-8),
and `refine_steps` more Adam steps optimise the key positions with the photometric loss, a U^-1-weighted
deviation from the pretrained motion and Eq. 9's isometry on key-key edges, while every non-key Gaussian moves
with its keys (skinning.py) under its own U^-1-weighted deviation (Eq. 10-11). Eq. 9's rigidity and rotation
terms have no counterpart here: our Gaussians are isotropic, with positions and no rotations.
Ablations: `graph: false` keeps the weighted deviation but frees every Gaussian (no keys); `weighting: false`
keeps the graph but replaces U^-1 by the identity (and the kNN's Mahalanobis distance by the Euclidean one);
`segment_aware: true` builds the graph inside each object segment of the canonical model (graph.py), and every
graph run records the skinning weight that crosses segments.
"""
from __future__ import annotations

import torch

from harness import Method, RunContext
from methods.dynamic_splatting.graph import KeyGraph, build_graph, cross_segment_weight
from methods.dynamic_splatting.motion import MotionProblem, adam, optimise_uniform
from methods.dynamic_splatting.params import USplat4DParams
from methods.dynamic_splatting.skinning import skinned
from methods.dynamic_splatting.task import MotionEstimate, MotionInputs
from methods.dynamic_splatting.uncertainty import Uncertainty, uncertainty


def deviation_weights(found: Uncertainty, weighted: bool, phi: float) -> torch.Tensor:
    """(T, N, 3, 3) the weight of a deviation from the pretrained motion: U^-1 scaled so that a typical
    converged Gaussian weighs about 1 in the image plane, or the identity (`weighted` false)."""
    if not weighted:
        return torch.eye(3, dtype=found.u.dtype).expand_as(found.inverse)
    converged = found.u[found.u < phi]
    return found.inverse * (converged.median() if converged.numel() else phi)


def _weighted_deviation(positions: torch.Tensor, pretrained: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    delta = positions - pretrained
    return torch.einsum("tni,tnij,tnj->tn", delta, weights, delta).mean()


def _record_cross_segment(ctx: RunContext, graph: KeyGraph, segments: torch.Tensor) -> None:
    """The skinning weight moving non-keys put on another segment's keys: mean per cent, and the per cent of
    them with over a quarter of it there (issue 61's audit figure)."""
    foreign = cross_segment_weight(graph, segments)[segments[graph.others] >= 0]
    if foreign.numel():
        ctx.record("cross_segment_weight", 100.0 * float(foreign.mean()), "%", higher_is_better=False)
        ctx.record("cross_segment_over_quarter", 100.0 * float((foreign > 0.25).double().mean()), "%",
                   higher_is_better=False)


class USplat4D(Method[USplat4DParams]):
    def run(self, inputs: MotionInputs, ctx: RunContext) -> MotionEstimate:
        p = self.params
        problem = inputs.problem()
        pretrained = optimise_uniform(problem, problem.prior, p.pretrain_steps, p.lr, p.prior_weight)
        render = problem.render(pretrained)
        found = uncertainty(render, problem.targets, pretrained.shape[1], problem.cameras, p.eta, p.phi,
                            p.depth_ratio)
        weights = deviation_weights(found, p.weighting, p.phi)
        ctx.record("unconverged_share", float((found.u >= p.phi).double().mean()), higher_is_better=False)
        if p.graph:
            segments = torch.as_tensor(inputs.segments)
            graph = build_graph(pretrained, found, p.key_share, p.neighbours, p.skinning, p.weighting,
                                segments if p.segment_aware else None)
            _record_cross_segment(ctx, graph, segments)
            refined = self._refine_with_graph(problem, pretrained, found, weights, graph)
        else:
            def loss(positions: torch.Tensor) -> torch.Tensor:
                return problem.photometric(positions) + p.deviation_weight * _weighted_deviation(
                    positions, pretrained, weights)

            refined = adam(pretrained, loss, p.refine_steps, p.lr)
        return MotionEstimate(refined.numpy(), found.per_gaussian().numpy(), pretrained.numpy())

    def _refine_with_graph(self, problem: MotionProblem, pretrained: torch.Tensor, found: Uncertainty,
                           weights: torch.Tensor, graph: KeyGraph) -> torch.Tensor:
        p = self.params
        reliable = found.reliable_frame()[graph.others]

        def assemble(keys: torch.Tensor) -> torch.Tensor:
            positions = torch.empty_like(pretrained)
            positions = positions.index_copy(1, graph.keys, keys)
            return positions.index_copy(1, graph.others, skinned(keys, pretrained, reliable, graph))

        def loss(keys: torch.Tensor) -> torch.Tensor:
            positions = assemble(keys)
            a, b = graph.edges[:, 0], graph.edges[:, 1]
            stretch = ((keys[:, a] - keys[:, b]).norm(dim=-1) - graph.rest) ** 2
            isometry = stretch.mean() if stretch.numel() else keys.sum() * 0
            return (problem.photometric(positions) + p.isometry_weight * isometry
                    + p.deviation_weight * _weighted_deviation(positions, pretrained, weights))

        keys = adam(pretrained[:, graph.keys], loss, p.refine_steps, p.lr)
        return assemble(keys)
