"""The seed trick: perturb/restore is exact in fp32 and within two ulps in fp16; updates replay the same z."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from methods.zo_finetune.perturbation import SeededPerturbation, directions  # noqa: E402
from methods.zo_finetune.zo import ZerothOrderOptimizer  # noqa: E402


def scales(dtype, seed: int = 0) -> list:
    gen = torch.Generator().manual_seed(seed)
    return [(torch.rand(256, 64, generator=gen) * 0.02 + 0.001).to(dtype),
            (torch.rand(3, 128, generator=gen) * 0.05 + 0.001).to(dtype)]


def ulps(after, before) -> float:
    unit = torch.finfo(before.dtype).eps * 2.0 ** torch.floor(torch.log2(before.float().abs()))
    return float(((after.float() - before.float()).abs() / unit).max())


def perturb_and_restore(perturbation: SeededPerturbation, seed: int) -> None:
    perturbation.perturb(seed, +1.0)
    perturbation.perturb(seed, -2.0)
    perturbation.perturb(seed, +1.0)


def test_fp32_scales_are_restored_bit_identically_over_many_steps():
    params = scales(torch.float32)
    perturbation = SeededPerturbation(params, eps=1e-3)
    before = [p.clone() for p in params]
    for seed in range(20):
        perturb_and_restore(perturbation, seed)
    for after, original in zip(params, before, strict=True):
        assert torch.equal(after, original)


def test_fp32_perturbation_moves_the_tensor_by_eps_z():
    params = scales(torch.float32)
    perturbation = SeededPerturbation(params, eps=1e-3)
    before = [p.clone() for p in params]
    perturbation.perturb(7, +1.0)
    for (param, z), original in zip(directions(params, 7), before, strict=True):
        torch.testing.assert_close(param - original, 1e-3 * z, atol=1e-8, rtol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_16_bit_scales_drift_at_most_two_ulps_in_one_restore(dtype):
    for seed in range(10):
        params = scales(dtype, seed)
        before = [p.clone() for p in params]
        perturb_and_restore(SeededPerturbation(params, eps=1e-3), seed)
        assert max(ulps(a, b) for a, b in zip(params, before, strict=True)) <= 2.0


def test_update_replays_the_perturbation_directions():
    params = scales(torch.float32)
    optimizer = ZerothOrderOptimizer(params, learning_rate=1e-4, eps=1e-3, clip=None)
    before = [p.clone() for p in params]
    step = optimizer.step(lambda: float(sum((p.double() ** 2).sum() for p in params)))
    for (param, z), original in zip(directions(params, step.seed), before, strict=True):
        torch.testing.assert_close(param - original, -1e-4 * step.projected_grad * z, atol=1e-8, rtol=1e-3)


def test_projected_gradient_estimates_the_directional_derivative():
    params = scales(torch.float32)
    optimizer = ZerothOrderOptimizer(params, learning_rate=1e-9, eps=1e-3, clip=None)
    before = [p.clone() for p in params]
    step = optimizer.step(lambda: float(sum(p.double().sum() for p in params)))  # gradient: all ones
    exact = sum(float(z.sum()) for _, z in directions(before, step.seed))
    assert step.projected_grad == pytest.approx(exact, rel=1e-3)


def test_clipping_bounds_the_projected_gradient_and_nan_passes_through():
    params = scales(torch.float32)
    optimizer = ZerothOrderOptimizer(params, learning_rate=1e-9, eps=1e-3, clip=5.0)
    step = optimizer.step(lambda: float(sum(p.double().sum() for p in params)))
    assert abs(step.projected_grad) > 5.0 and abs(step.clipped_grad) == 5.0
    nan_step = ZerothOrderOptimizer(scales(torch.float32), 1e-4, clip=5.0).step(lambda: float("nan"))
    assert nan_step.clipped_grad != nan_step.clipped_grad


def test_floor_keeps_scales_positive():
    params = scales(torch.float32)
    optimizer = ZerothOrderOptimizer(params, learning_rate=10.0, eps=1e-3, clip=None, floors=[1e-7, 1e-7])
    optimizer.step(lambda: float(sum(p.double().sum() for p in params)))
    assert all(float(p.min()) >= 1e-7 * (1 - 1e-6) for p in params)


def test_global_rng_is_untouched():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    params = scales(torch.float32)
    ZerothOrderOptimizer(params, 1e-4).step(lambda: 0.0)
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("kwargs, message", [
    ({"eps": 0.0}, "eps must be > 0"),
    ({"eps": -1e-3}, "eps must be > 0"),
    ({"clip": 0.0}, "clip"),
    ({"clip": -1.0}, "clip"),
    ({"learning_rate": 0.0}, "learning_rate"),
])
def test_bad_hyperparameters_are_clear_errors(kwargs, message):
    arguments = {"learning_rate": 1e-4, "eps": 1e-3, "clip": 100.0, **kwargs}
    with pytest.raises(ValueError, match=message):
        ZerothOrderOptimizer(scales(torch.float32), **arguments)


def test_nothing_to_perturb_is_a_clear_error():
    with pytest.raises(ValueError, match="nothing to perturb"):
        SeededPerturbation([], eps=1e-3)
