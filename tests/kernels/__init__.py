"""Tests of the Triton kernels, each against its plain-torch reference."""
from __future__ import annotations

import importlib
from types import ModuleType

import pytest
import torch

from tests.extras import require_extra


def triton_kernel_module(package: str) -> ModuleType:
    """`package.triton_kernel`, or a skip without triton; fails if it was imported before TRITON_INTERPRET=1
    was set on a machine without CUDA (it could not run on CPU then)."""
    require_extra("sparse-attention")  # triton; the zo-finetune extra brings it too
    module = importlib.import_module(f"{package}.triton_kernel")
    if not (torch.cuda.is_available() or module.INTERPRETED):
        pytest.fail("triton_kernel was imported before TRITON_INTERPRET=1 was set, so it cannot run on CPU")
    return module
