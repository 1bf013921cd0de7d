"""Seeded in-place perturbation of parameter tensors: MeZO's memory trick, with an exact restore in fp32.

A zeroth-order step perturbs every trainable tensor by +eps z, then -2 eps z, then +eps z, and later applies
the update along the same z. No direction is stored: each z is redrawn from a dedicated `torch.Generator`
seeded with the step's seed, one tensor at a time in a fixed order (MeZO `trainer.py::zo_perturb_parameters`;
QZO Alg. 1), so at most one parameter-sized z is alive and the global RNG is untouched.

In floating point, x + a - 2a + a is not x: measured on fp32 scales near 0.01 with eps = 1e-3, 44 % of the
elements drift by up to 2e-9. fp32 tensors are therefore kept on a per-tensor fixed-point grid: every value
and every perturbation eps z is a multiple of the tensor's quantum q = 2^(e - 24), where 2^e bounds
|x| + 2 |eps z| (with |z| < 8), so each sum is exactly representable and the restore is bit-identical. The
grid costs the perturbation a relative rounding of q / (eps |z|) (about 1e-5 for scales near 0.01) and the
values 24 bits of range below the tensor's largest. fp16 and bf16 tensors (the paper's fp16 scales) are
perturbed in their own precision, as MeZO and QZO do: three roundings leave a drift of at most two units in
the last place (measured over 600K fp16 scales; one ulp is not attainable without storing a residual).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch

Z_BOUND = 8.0  # |z| beyond 8 has probability 1e-15 per element; the grid's headroom assumes it
_FRACTION_BITS = 24  # fp32's significand, implicit bit included


def directions(params: Sequence[torch.Tensor], seed: int):  # -> Iterator[tuple[torch.Tensor, torch.Tensor]]
    """Yield (tensor, z) in a fixed order, each z ~ N(0, I) in fp32 redrawn from `seed`: the same z every call."""
    generator = torch.Generator(device=params[0].device if params else "cpu")
    generator.manual_seed(seed)
    for param in params:
        yield param, torch.randn(param.shape, generator=generator, dtype=torch.float32, device=param.device)


class SeededPerturbation:
    """Perturb `params` in place along seeded Gaussian directions, restorably, and update along them.

    `eps` scales the perturbation. `decays[i]` says whether tensor i takes weight decay (MeZO skips biases
    and norms) and `floors[i]` is its lower clamp or None (QZO keeps its scales positive). fp32 tensors are
    snapped onto their fixed-point grid on construction and after every `update` (module docstring); their
    quanta are the only state kept (one float a tensor).
    """

    def __init__(self, params: Sequence[torch.Tensor], eps: float, decays: Sequence[bool] | None = None,
                 floors: Sequence[float | None] | None = None) -> None:
        if not eps > 0:
            raise ValueError(f"eps must be > 0, got {eps!r} (QZO and MeZO use 1e-3)")
        if not params:
            raise ValueError("nothing to perturb: the list of trainable tensors is empty")
        self.params = list(params)
        self.eps = float(eps)
        self.decays = list(decays) if decays is not None else [True] * len(self.params)
        self.floors = list(floors) if floors is not None else [None] * len(self.params)
        self._quanta: list[float | None] = [None] * len(self.params)
        self.snap()

    def snap(self) -> None:
        """Round each fp32 tensor onto the grid that keeps x +- 2 eps z exact (a no-op for 16-bit tensors)."""
        with torch.no_grad():
            for i, param in enumerate(self.params):
                if param.dtype != torch.float32:
                    continue
                bound = 2.0 * float(param.abs().max()) + 2.0 * self.eps * Z_BOUND
                if not math.isfinite(bound):  # diverged (NaN or inf): nothing left to restore exactly
                    self._quanta[i] = None
                    continue
                quantum = 2.0 ** (math.ceil(math.log2(bound)) - _FRACTION_BITS)
                grid = torch.round(param / quantum)
                floor = self.floors[i]
                if floor is not None:  # the floor, rounded up onto the grid, still holds
                    grid.clamp_(min=math.ceil(floor / quantum))
                param.copy_(grid.mul_(quantum))
                self._quanta[i] = quantum

    def perturb(self, seed: int, coefficient: float) -> None:
        """x += coefficient * eps * z for every tensor; +1, -2, +1 in a row restores fp32 tensors exactly."""
        with torch.no_grad():
            for (param, z), quantum in zip(directions(self.params, seed), self._quanta, strict=True):
                if quantum is None:
                    param.add_(z.to(param.dtype), alpha=coefficient * self.eps)
                else:  # eps z on the grid, times a small integer: every sum stays exact
                    param.add_(z.mul_(self.eps / quantum).round_().mul_(quantum), alpha=coefficient)

    def update(self, seed: int, learning_rate: float, projected_grad: float, weight_decay: float = 0.0) -> None:
        """x <- x - lr (g z + wd x) along the perturbation's z (same seed, same order), then each tensor's floor.

        MeZO's `zo_update`, with QZO's clamp of the scales (the paper clamps at 0, the code at 1e-7).
        """
        with torch.no_grad():
            for (param, z), decays, floor in zip(directions(self.params, seed), self.decays, self.floors, strict=True):
                if weight_decay and decays:
                    param.mul_(1.0 - learning_rate * weight_decay)
                param.add_(z.mul_(-learning_rate * projected_grad).to(param.dtype))
                if floor is not None:
                    param.clamp_(min=floor)
        self.snap()
