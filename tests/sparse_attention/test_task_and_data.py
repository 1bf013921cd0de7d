"""The fidelity task's contract: mask tables, split and data checks, capture files, planted patterns."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import torch

from harness import DataError, Instance
from kernels.block_layout import causal_block_mask
from methods.sparse_attention.data import load_captured, structured
from methods.sparse_attention.problem import PrefillOutput
from methods.sparse_attention.problem import AttentionCase, PrefillInputs, check_case
from methods.sparse_attention.synthetic import PatternSpec, structured_cases
from methods.sparse_attention.task import PrefillAttention, block_size_of, masks_to_table, table_to_masks
from methods.sparse_attention.true_attention import block_mass
from tests.sparse_attention.conftest import random_case


def _capture(path, q_heads=4, kv_heads=2, n=96, prompts=2, layers=3, dtype=np.float32):
    rng = np.random.default_rng(0)
    arrays = {name: rng.standard_normal((prompts, layers, heads, n, 16)).astype(dtype)
              for name, heads in (("q", q_heads), ("k", kv_heads), ("v", kv_heads))}
    np.savez(path, **arrays, layers=np.array([0, 5, 11][:layers]))
    return arrays


def test_mask_table_round_trips():
    masks = (causal_block_mask(4, 200, 32), torch.eye(4, dtype=torch.bool).expand(2, 4, 4).clone())
    cases = (random_case(seq_len=200, name="a"), random_case(seq_len=128, q_heads=2, kv_heads=1, name="b"))
    table = masks_to_table(["a", "b"], masks)
    assert list(table.columns) == ["case", "head", "q_block", "k_block"]
    restored = table_to_masks(table, PrefillInputs(cases, 32))
    assert all(torch.equal(m, r) for m, r in zip(masks, restored, strict=True))


def _blocks(case: str = "a", head: int = 0, q_block: int = 0, k_block: int = 0) -> dict[str, list]:
    return {"case": [case], "head": [head], "q_block": [q_block], "k_block": [k_block]}


@pytest.mark.parametrize(("table", "message"), [
    (_blocks(case="x"), "sample 'x' is not a test sample"),
    ({**_blocks(), "k_block": [0.5]}, "0.5 is not an integer"),
    ({"case": ["a"]}, "no column 'head'"),
    ({key: value * 2 for key, value in _blocks().items()}, "a second row for head 0, q_block 0, k_block 0, case 'a'"),
])
def test_the_engine_refuses_mask_tables_with_unknown_cases_or_repeated_blocks(table, message):
    inputs = PrefillInputs((random_case(seq_len=64, name="a"), random_case(seq_len=64, name="b")), 32)
    instance = Instance(inputs=inputs, truth=inputs)
    assert PrefillAttention().checked(instance, pd.DataFrame(_blocks())).shape == (1, 4)  # case b: no block
    with pytest.raises(DataError, match=re.escape(message)):
        PrefillAttention().checked(instance, pd.DataFrame(table))


def test_mask_tables_with_blocks_out_of_range_are_rejected():
    inputs = PrefillInputs((random_case(seq_len=64, name="a"),), 32)
    with pytest.raises(ValueError, match="out of range"):
        table_to_masks(pd.DataFrame(_blocks(q_block=5)), inputs)


@pytest.mark.parametrize("split", [{"block": 64}, {"block_size": 48}, {"block_size": 8}])
def test_bad_splits_name_the_problem(split):
    with pytest.raises(ValueError, match="block_size|unknown split key"):
        block_size_of(split)


def test_a_case_with_nan_heads_that_do_not_divide_or_mixed_dtypes_is_a_data_error():
    good = random_case()
    bad = [AttentionCase("nan", good.q.clone().index_fill_(1, torch.tensor([3]), float("nan")), good.k, good.v),
           AttentionCase("heads", good.q[:3], good.k, good.v),
           AttentionCase("dtype", good.q.half(), good.k, good.v),
           AttentionCase("shape", good.q, good.k, good.v[:, :10])]
    for case, message in zip(bad, ["non-finite", "do not divide", "dtype", "shapes"], strict=True):
        with pytest.raises(DataError, match=message):
            check_case(case, "capture.npz")


def test_capture_files_give_one_prompt_per_seed_named_by_layer(tmp_path):
    arrays = _capture(tmp_path / "c.npz")
    data = load_captured(tmp_path / "c.npz")
    first, third = data.cases(0), data.cases(2)
    assert [c.name for c in first] == ["prompt0/layer0", "prompt0/layer5", "prompt0/layer11"]
    assert third[0].name == "prompt0/layer0"  # two prompts: seed 2 reads prompt 0 again
    np.testing.assert_array_equal(data.cases(1)[2].q.numpy(), arrays["q"][1, 2])
    instance = PrefillAttention().instance(data, {"block_size": 32}, 1)
    assert instance.inputs.cases[0].name == "prompt1/layer0"


@pytest.mark.parametrize("breakage, message", [
    (lambda a: a.pop("v"), "lacks array"),
    (lambda a: a.update(k=a["k"][:, :, :, :50]), "shapes"),
    (lambda a: a.update(q=a["q"].astype(np.float64)), "dtype"),
    (lambda a: a["v"].__setitem__((1, 2, 0, 5, 3), np.nan), "non-finite values \\(first in prompt 1, layer index 2"),
    (lambda a: a.update(k=a["k"][:, :, :1].repeat(3, axis=2), v=a["v"][:, :, :1].repeat(3, axis=2)), "do not divide"),
])
def test_malformed_capture_files_are_data_errors_naming_the_file(tmp_path, breakage, message):
    arrays = _capture(tmp_path / "c.npz")
    breakage(arrays)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(DataError, match=message) as error:
        load_captured(tmp_path / "bad.npz")
    assert "bad.npz" in str(error.value)


def test_unknown_generator_arguments_are_data_errors():
    with pytest.raises(DataError, match="unknown argument 'heads'"):
        structured(heads=4)
    with pytest.raises(DataError, match="spans"):
        structured(spans=100)


def test_planted_patterns_are_deterministic_per_seed_and_share_positions_across_heads():
    spec = PatternSpec(seq_len=1024, q_heads=4, kv_heads=2, head_dim=32, layers=1, spans=4)
    a, b, c = structured_cases(spec, 0)[0], structured_cases(spec, 0)[0], structured_cases(spec, 1)[0]
    assert torch.equal(a.q, b.q) and not torch.equal(a.q, c.q)
    mass = block_mass(a, 64)
    typical = mass[:, 1:, 1:].median(dim=-1).values
    assert bool((mass[:, 1:, 0] > 1.5 * typical).all())  # the sink draws more than a typical block
    top = mass[:, -1].argsort(-1, descending=True)[:, :4]
    shared = set(top[0].tolist())
    assert all(len(shared & set(row.tolist())) >= 2 for row in top)  # heads share most of their focus


def test_predictions_of_a_method_output_are_its_masks():
    case = random_case(seq_len=128)
    inputs = PrefillInputs((case,), 32)
    mask = causal_block_mask(4, 128, 32)
    table = PrefillAttention().predictions(Instance(inputs, inputs), PrefillOutput((mask,)))
    assert len(table) == 4 * 10
