"""Round-to-nearest (RTN) quantization into the GPTQ format, for tests, benchmarks and toy models.

GPTQ itself chooses codes with second-order error feedback; RTN rounds each weight on its own. Both
produce the same storage format, and this one needs no calibration data, so it is what the tests and
benchmarks use to make realistic packed weights. Asymmetric min-max per (group, column), as GPTQ's
quantizer initialises its grid: scale = (max - min) / (2**bits - 1), zero = round(-min / scale).
"""
from __future__ import annotations

import torch

from .packing import pack_cols, pack_rows


def quantize_rtn(weight: torch.Tensor, group_size: int, bits: int = 4,
                 scale_dtype: torch.dtype = torch.float16) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(qweight, scales, qzeros) of W [in_features, out_features], each weight rounded to its group's grid.

    A constant group gets scale 1 (its range is 0), so no scale is zero. The range always includes 0,
    so a zero weight dequantizes to exactly 0. Scales are rounded to `scale_dtype` before the codes
    are chosen, so the codes are the nearest ones for the stored scales.
    """
    if weight.dim() != 2 or not weight.dtype.is_floating_point:
        raise ValueError(f"weight must be a 2-D floating tensor [in_features, out_features], "
                         f"got {weight.dim()}-D {weight.dtype}")
    in_features, out_features = weight.shape
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1 \
            or in_features % group_size:
        raise ValueError(f"group_size must be a positive int dividing in_features {in_features}, got {group_size!r}")
    levels = (1 << bits) - 1
    grouped = weight.float().view(in_features // group_size, group_size, out_features)
    low = grouped.amin(dim=1).clamp(max=0.0)
    high = grouped.amax(dim=1).clamp(min=0.0)
    scales = ((high - low) / levels).to(scale_dtype)
    scales = torch.where(scales == 0, torch.ones_like(scales), scales)
    zeros = torch.round(-low / scales.float()).clamp(0, levels)
    codes = torch.round(grouped / scales.float().unsqueeze(1) + zeros.unsqueeze(1)).clamp(0, levels)
    qweight = pack_rows(codes.view(in_features, out_features).to(torch.int32), bits)
    return qweight, scales, pack_cols(zeros.to(torch.int32), bits)
