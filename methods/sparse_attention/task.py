"""Prefill attention for one layer: a method returns block masks; fidelity is scored from the masks alone.

The predictions table lists every selected block, one row each: `case`, `head`, `q_block`, `k_block`.
Because the output under a mask is a function of the mask (one shared backend), the table is all a
re-score needs, and a user's own masks (bring-your-own predictions) are scored the same way.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from harness import DataError, Instance, Metric, Task
from harness.predictions_schema import Column, PredictionsSchema

if TYPE_CHECKING:  # torch, imported where a run needs it: validating and planning a suite load this task without it
    import torch

    from methods.sparse_attention.data import AttentionData
    from methods.sparse_attention.problem import PrefillInputs

SPLIT_KEYS = {"block_size"}


def block_size_of(split: Mapping[str, Any]) -> int:
    unknown = sorted(str(k) for k in set(split) - SPLIT_KEYS)
    if unknown:
        raise ValueError(f"unknown split key {unknown[0]!r}; allowed: block_size (tokens per block, e.g. 64)")
    size = split.get("block_size", 64)
    if not isinstance(size, int) or isinstance(size, bool) or size < 16 or size & (size - 1):
        raise ValueError(f"split key 'block_size' must be a power of two >= 16, got {size!r}")
    return size


def masks_to_table(names: list[str], masks: tuple[torch.Tensor, ...]) -> pd.DataFrame:
    parts = []
    for name, mask in zip(names, masks, strict=True):
        head, q_block, k_block = mask.nonzero().T.numpy().astype(np.int32)
        parts.append(pd.DataFrame({"case": name, "head": head, "q_block": q_block, "k_block": k_block}))
    return pd.concat(parts, ignore_index=True)


def table_to_masks(table: pd.DataFrame, inputs: PrefillInputs) -> list[torch.Tensor]:
    """One bool mask per case of a checked table (`PrefillAttention.predictions_schema`: known cases, each block
    once); `ValueError` for a block out of the case's range."""
    import torch

    from kernels.block_layout import num_blocks

    masks = []
    for case in inputs.cases:
        rows = table[table["case"] == case.name]
        nb = num_blocks(case.seq_len, inputs.block_size)
        index = rows[["head", "q_block", "k_block"]].to_numpy(dtype=np.int64, copy=True)
        if index.size and (index.min() < 0 or index[:, 0].max() >= case.q_heads or index[:, 1:].max() >= nb):
            raise ValueError(f"case '{case.name}': a block index is out of range ({case.q_heads} heads, {nb} blocks)")
        mask = torch.zeros(case.q_heads, nb, nb, dtype=torch.bool)
        mask[tuple(torch.from_numpy(index).T)] = True
        masks.append(mask)
    return masks


class PrefillAttention(Task):
    """Score block masks against exact attention: density, recall (mean, 1st percentile, worst row), error."""

    # One row per selected block. A case without rows selects nothing; a block listed twice is refused.
    predictions_schema = PredictionsSchema(
        (Column("case", "text", description="the case's name in the dataset"),
         Column("head", "integer", description="the query head"),
         Column("q_block", "integer"), Column("k_block", "integer")),
        sample="case", per=("head", "q_block", "k_block"), every_sample=False)

    def test_samples(self, instance: Instance) -> list[str]:
        return [case.name for case in instance.inputs.cases]

    def check_split(self, split: Mapping[str, Any]) -> None:
        block_size_of(split)

    def tiny_instance(self, seed: int) -> Instance:
        """One layer of planted patterns: 256 tokens, 4 query and 2 KV heads, blocks of 32."""
        from methods.sparse_attention.data import structured

        data = structured(seq_len=256, q_heads=4, kv_heads=2, head_dim=16, layers=1, spans=2)
        return self.instance(data, {"block_size": 32}, seed)

    def instance(self, data: AttentionData, split: Mapping[str, Any], seed: int) -> Instance:
        from methods.sparse_attention.problem import PrefillInputs, check_case

        cases = data.cases(seed)
        for case in cases:
            check_case(case, data.source)
        inputs = PrefillInputs(tuple(cases), block_size_of(split))
        if len({case.name for case in cases}) != len(cases):
            raise DataError("case names must be unique within an instance", file=data.source)
        return Instance(inputs=inputs, truth=inputs)

    def predictions(self, instance: Instance, output: Any) -> pd.DataFrame:
        from methods.sparse_attention.problem import PrefillOutput

        if isinstance(output, pd.DataFrame):
            return output
        if not isinstance(output, PrefillOutput):
            raise TypeError(f"a sparse-attention method returns PrefillOutput, got {type(output).__name__}")
        return masks_to_table([case.name for case in instance.inputs.cases], output.masks)

    def score(self, instance: Instance, predictions: pd.DataFrame, metrics: Mapping[str, Metric]) -> dict[str, float]:
        from methods.sparse_attention.fidelity import FidelityEvaluation

        inputs: PrefillInputs = instance.truth
        evaluation = FidelityEvaluation(inputs.cases, table_to_masks(predictions, inputs), inputs.block_size)
        return {key: metric(evaluation) for key, metric in metrics.items()}
