"""The geometric loss the guidance and optimisation baselines steer toward a control with: binary cross-entropy
between the soft occupancy of a latent (the linear decoder's signed field through a sigmoid at `TEMPERATURE`) and
the control's voxels, averaged over voxels, one value per shape.

The paper's guidance baselines are described only as steering "toward the target shape with a geometric loss
during sampling" (spec, [inferred]); a voxel BCE on a differentiable occupancy is the loss occupancy networks
train with (Mescheder et al., 2019) and the one 3D guidance work applies to decoded occupancies. TEMPERATURE is
ours: the decoder's field is about +-1 on real shapes, so 0.1 makes a decoded voxel's soft occupancy 0.9999 at
full strength and 0.73 at a tenth of it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

TEMPERATURE = 0.1


def control_targets(grids: np.ndarray) -> Any:
    """(N, R, R, R) bool controls -> (N, R^3) float32 targets of the loss."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(grids).reshape(len(grids), -1).astype(np.float32))


def occupancy_loss(model: Any, latents: Any, targets: Any) -> Any:
    """(N,) voxel BCE of each latent's soft occupancy against its control's voxels (differentiable in latents)."""
    import torch

    logits = model.decode_signed(latents) / TEMPERATURE
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="none").mean(dim=1)
