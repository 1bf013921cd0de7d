"""The guidance and optimisation baselines at their ends (no strength: unconditional sampling from the same
noise; more strength: closer to the control), the per-seed flow, and the reference rows' true-shape and
Fréchet-floor figures."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from harness.context import RunContext
from methods.shape_control import metrics
from methods.shape_control.baselines.guidance import LossGuidance, guided_samples
from methods.shape_control.baselines.noise_optimisation import chi_regulariser, optimised_samples
from methods.shape_control.baselines.real_shapes import RealShapes, TrueShapes
from methods.shape_control.baselines.unconditional import Unconditional
from methods.shape_control.data import load_flow
from methods.shape_control.flow import sdedit
from methods.shape_control.geometric_loss import control_targets, occupancy_loss
from methods.shape_control.params import NoiseOptimisationParams
from methods.shape_control.task import ControlledGeneration

EVERY = {name: getattr(metrics, name.upper()) for name in
         ("chamfer_l2", "iou", "chamfer_true", "fscore_true", "iou_true", "frechet", "nn_distance")}


@pytest.fixture
def instance():
    return ControlledGeneration().tiny_instance(0)


def _loss(model, grids: np.ndarray, controls: np.ndarray) -> float:  # noqa: ANN001
    """The geometric loss of decoded shapes, re-encoded: mean voxel BCE of their latents against the controls."""
    with torch.no_grad():
        latents = model.encode(torch.from_numpy(grids))
        return float(occupancy_loss(model, latents, control_targets(controls)).mean())


def test_guidance_at_strength_zero_is_unconditional_sampling_from_the_same_noise(instance):
    model = load_flow(instance.inputs.flow_dir)
    controls = instance.inputs.control_grids()
    free = sdedit(model, controls, 1.0, 10, np.random.default_rng(5))
    assert np.array_equal(guided_samples(model, controls, 0.0, 10, np.random.default_rng(5)), free)


def test_more_guidance_strength_fits_the_control_better(instance):
    model = load_flow(instance.inputs.flow_dir)
    controls = instance.inputs.control_grids()
    ious = []
    for strength in (0.0, 3.0, 30.0):
        grids = guided_samples(model, controls, strength, 10, np.random.default_rng(1))
        ious.append(np.mean([metrics.voxel_iou(g, c) for g, c in zip(grids, controls, strict=True)]))
    assert ious[0] < ious[1] < ious[2]


def test_a_guided_run_is_a_different_sample_for_another_seed(instance):
    method = LossGuidance(strength=3.0, steps=10)
    first, other = (method.run(instance.inputs, RunContext(seed, "cpu", 1)) for seed in (0, 1))
    assert any(not np.array_equal(first[name].grid, other[name].grid) for name in first)


def test_noise_optimisation_at_weight_zero_is_unconditional_and_a_larger_weight_lowers_the_loss(instance):
    model = load_flow(instance.inputs.flow_dir)
    controls = instance.inputs.control_grids()
    free = sdedit(model, controls, 1.0, 5, np.random.default_rng(2))

    def optimised(weight: float) -> np.ndarray:
        params = NoiseOptimisationParams(steps=5, weight=weight, iterations=5)
        return optimised_samples(model, controls, params, np.random.default_rng(2))

    assert np.array_equal(optimised(0.0), free)
    losses = [_loss(model, optimised(weight), controls) for weight in (0.0, 10.0, 100.0)]
    assert losses[0] > losses[1] > losses[2]


def test_the_chi_regulariser_is_lowest_on_the_typical_shell():
    radii = torch.tensor([2.0, np.sqrt(15.0), 6.0])
    directions = torch.nn.functional.normalize(torch.ones(3, 16), dim=1)
    values = chi_regulariser(directions * radii[:, None])
    assert values[1] < values[0] and values[1] < values[2]


def test_each_seed_has_its_own_flow_and_one_seed_keeps_it(instance):
    models = instance.inputs.source.models
    assert models.flow_dir(0) == instance.inputs.flow_dir == models.flow_dir(0)
    assert models.flow_dir(1) != models.flow_dir(0)
    first, other = (load_flow(models.flow_dir(seed)).velocity[0].weight for seed in (0, 1))
    assert not torch.equal(first, other)


def test_the_true_shape_is_perfectly_faithful_to_itself_and_real_shapes_are_blind_to_the_controls(instance):
    task = ControlledGeneration()

    def score(method) -> dict[str, float]:  # noqa: ANN001
        return task.score(instance, task.predictions(instance, method.run(instance.inputs, RunContext(0, "cpu", 1))),
                          EVERY)

    true, real, free = score(TrueShapes()), score(RealShapes()), score(Unconditional(steps=10))
    assert (true["chamfer_true"], true["fscore_true"], true["iou_true"]) == (0.0, 1.0, 1.0)
    assert true["chamfer_l2"] > 0 and true["iou"] < 1  # the control is coarser than the shape
    assert real["iou_true"] < true["iou_true"] and real["nn_distance"] < free["nn_distance"]
    assert np.isfinite(real["frechet"]) and np.isfinite(free["chamfer_true"])
