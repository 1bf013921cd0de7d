"""The long-context task: RULER's Avg and wAvg from a table, the dataset's checks, and one run end to end."""
from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest
import torch

transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("one_torch_thread")

from harness import DataError, RunContext  # noqa: E402
from kernels.block_layout import causal_block_mask  # noqa: E402
from methods.sparse_attention import long_context_metrics as lcm  # noqa: E402
from methods.sparse_attention import ruler, tiny_model  # noqa: E402
from methods.sparse_attention.baselines.fixed_density import FixedDensity  # noqa: E402
from methods.sparse_attention.dense import DenseAttention  # noqa: E402
from methods.sparse_attention.long_context import (  # noqa: E402
    COLUMNS,
    LongContextAccuracy,
    ruler_tiny,
    scored_table,
)
from methods.sparse_attention.problem import PrefillOutput  # noqa: E402
from methods.sparse_attention.problem import PrefillInputs  # noqa: E402
from tests.sparse_attention.conftest import random_case  # noqa: E402

TASKS = ["niah_single", "kv_retrieval"]
ALL_METRICS = {name: getattr(lcm, name.upper()) for name in (
    "ruler_avg", "ruler_wavg", "prefill_density", "ruler_acc_512", "ruler_acc_768", "ruler_acc_1k", "ruler_acc_2k",
    "ruler_acc_4k", "ruler_acc_8k", "ruler_niah_single", "ruler_niah_multikey", "ruler_kv_retrieval",
    "ruler_variable_tracking")}


@pytest.fixture(scope="module")
def data(random_model_dir):
    return ruler_tiny(tasks=TASKS, context_lengths=[256], samples=1, model={"path": str(random_model_dir)},
                      block_size=16)


def _table(rows: list[tuple[str, int, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"task": t, "context_length": n, "score": s, "density": 0.5} for t, n, s in rows])


def test_avg_is_the_mean_over_lengths_and_wavg_weights_longer_lengths_more():
    table = _table([("niah_single", 1024, 1.0), ("kv_retrieval", 1024, 0.0),
                    ("niah_single", 2048, 0.0), ("kv_retrieval", 2048, 0.5),
                    ("niah_single", 4096, 1.0), ("kv_retrieval", 4096, 1.0)])
    scores = {name: metric(table) for name, metric in ALL_METRICS.items()}
    assert scores["ruler_acc_1k"] == 50.0 and scores["ruler_acc_2k"] == 25.0 and scores["ruler_acc_4k"] == 100.0
    assert scores["ruler_avg"] == pytest.approx((50 + 25 + 100) / 3)
    assert scores["ruler_wavg"] == pytest.approx((1 * 50 + 2 * 25 + 3 * 100) / 6)
    assert all(math.isnan(scores[f"ruler_acc_{n}"]) for n in ("512", "768", "8k"))
    assert scores["ruler_niah_single"] == pytest.approx((100 + 0 + 100) / 3)
    assert scores["ruler_kv_retrieval"] == pytest.approx((0 + 50 + 100) / 3)
    assert math.isnan(scores["ruler_niah_multikey"]) and math.isnan(scores["ruler_variable_tracking"])
    assert scores["prefill_density"] == 0.5


def test_wavg_equals_avg_when_every_length_scores_alike_and_weights_only_lengths_present():
    flat = _table([("niah_single", n, 0.5) for n in (512, 1024, 8192)])
    assert lcm.ruler_wavg(flat) == pytest.approx(lcm.ruler_avg(flat)) == pytest.approx(50.0)
    two = _table([("niah_single", 512, 0.0), ("niah_single", 8192, 1.0)])
    assert lcm.ruler_wavg(two) == pytest.approx((1 * 0 + 2 * 100) / 3)


def test_scores_come_from_the_instances_answers_not_the_tables(data):
    task = LongContextAccuracy()
    instance = task.instance(data, {}, 0)
    ids = list(instance.truth)
    right = instance.truth[ids[0]].sample.answers
    predictions = pd.DataFrame({"sample": ids, "prediction": [" ".join(right), "nothing"],
                                "answers": [json.dumps(["nothing"])] * 2, "density": [1.0, 1.0]})
    table = scored_table(task.checked(instance, predictions), instance.truth)
    assert table["score"].tolist() == [1.0, 0.0]
    assert table["context_length"].tolist() == [256, 256]
    unanswered = predictions.assign(prediction=[" ".join(right), None])  # an empty answer answers nothing
    assert scored_table(task.checked(instance, unanswered), instance.truth)["score"].tolist() == [1.0, 0.0]
    no_density = scored_table(task.checked(instance, predictions.drop(columns="density")), instance.truth)
    assert no_density["score"].tolist() == [1.0, 0.0] and no_density["density"].isna().all()
    with pytest.raises(DataError, match="holds inf, not a finite number"):
        task.checked(instance, predictions.assign(density=[1.0, float("inf")]))
    with pytest.raises(DataError, match=re.escape(f"1 test sample(s) have no row, e.g. {ids[1]!r}")):
        task.checked(instance, predictions.iloc[:1])
    with pytest.raises(DataError, match="sample 'x/1/0' is not a test sample"):
        task.checked(instance, predictions.assign(sample=["x/1/0", ids[1]]))
    with pytest.raises(DataError, match=re.escape(f"a second row for sample {ids[0]!r}")):
        task.checked(instance, predictions.assign(sample=[ids[0], ids[0]]))


@pytest.mark.parametrize(("method", "dense"), [(DenseAttention(), True), (FixedDensity(density=0.3), False)],
                         ids=["dense", "fixed_density"])
def test_task_end_to_end_on_a_random_tiny_model(data, method, dense):
    task = LongContextAccuracy()
    instance = task.instance(data, {}, 0)
    ctx = RunContext(seed=0, device="cpu", threads=1)
    torch.manual_seed(0)
    table = task.predictions(instance, method.run(instance.inputs, ctx))
    assert list(table.columns) == COLUMNS and len(table) == 2
    assert set(table["task"]) == set(TASKS) and set(table["context_length"]) == {256}
    assert all(isinstance(json.loads(a), list) for a in table["answers"])
    assert (table["density"] == 1.0).all() if dense else (table["density"] < 0.6).all()
    scores = task.score(instance, table, ALL_METRICS)
    assert 0.0 <= scores["ruler_avg"] <= 100.0 and math.isnan(scores["ruler_acc_1k"])
    assert scores["prefill_density"] == pytest.approx(table["density"].mean())
    assert {"estimation_ms", "attention_ms", "prefill_ms", "tokens_per_s", "dense_fallbacks"} <= set(ctx.measurements)
    if dense:  # dense prefill and greedy decode answer as tiny_model's own generate does
        prompt = instance.inputs.prompts[0]
        expected = tiny_model.generate_answer(data.model, data.tokenizer, prompt.text, prompt.max_new_tokens)
        assert table["prediction"][0] == expected


def test_seeds_draw_new_samples_outside_the_tiny_models_training_and_check_seeds(data):
    first, again, second = data.instance(0), data.instance(0), data.instance(1)
    prompts = [d.sample.prompt for d in first]
    assert prompts == [d.sample.prompt for d in again]
    assert not set(prompts) & {d.sample.prompt for d in second}
    checked = {s.prompt for t in TASKS for s in ruler.generate(t, 256, 1, seed=10_000)}  # tiny_model's check
    assert not set(prompts) & checked


def test_a_missing_model_folder_is_a_data_error_naming_it(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(DataError, match="does not exist") as error:
        ruler_tiny(tasks=TASKS, context_lengths=[256], samples=1, model={"path": str(missing)})
    assert str(missing) in str(error.value)


def test_a_model_folder_without_tokenizer_is_a_clear_data_error(random_model_dir, tmp_path):
    (tmp_path / "config.json").write_text((random_model_dir / "config.json").read_text())
    with pytest.raises(DataError, match="has no tokenizer") as error:
        ruler_tiny(tasks=TASKS, context_lengths=[256], samples=1, model={"path": str(tmp_path)})
    assert "save_pretrained" in str(error.value)


@pytest.mark.parametrize(("args", "message"), [
    ({"tasks": ["niah_singel"]}, "unknown RULER task 'niah_singel'"),
    ({"context_lengths": [0]}, "positive integers"),
    ({"block_size": 48}, "power of two"),
    ({"model": {"path": "x", "seed": 1}}, "with a path only 'dtype'"),
    ({"model": {"sead": 1}}, "unknown model argument 'sead'"),
    ({"model": {"path": "x", "dtype": "int8"}}, "dtype 'int8'"),
    ({"model": "some/folder"}, "model must be a mapping"),
    ({"context_lengths": [4096]}, "exceeds the model's max_position_embeddings"),
])
def test_bad_dataset_arguments_are_data_errors(random_model_dir, args, message):
    full = {"tasks": TASKS, "context_lengths": [256], "samples": 1, "model": {"path": str(random_model_dir)}} | args
    with pytest.raises(DataError, match=message):
        ruler_tiny(**full)


def test_the_task_takes_no_split_keys():
    with pytest.raises(ValueError, match="unknown split key 'block_size'"):
        LongContextAccuracy().check_split({"block_size": 64})


def test_run_still_answers_the_fidelity_task_and_refuses_other_inputs():
    case = random_case(seq_len=64)
    ctx = RunContext(seed=0, device="cpu", threads=1)
    output = DenseAttention().run(PrefillInputs((case,), 16), ctx)
    assert isinstance(output, PrefillOutput) and torch.equal(output.masks[0], causal_block_mask(4, 64, 16))
    assert {"estimation_ms", "attention_ms", "prefill_ms", "estimation_flop_fraction"} <= set(ctx.measurements)
    with pytest.raises(TypeError, match="PrefillInputs or LongContextInputs"):
        DenseAttention().run([case], ctx)
