"""Every method end to end on a small saved model: it trains what it should, and only that."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from harness import DataError  # noqa: E402
from harness.context import RunContext  # noqa: E402
from methods.zo_finetune import synthetic  # noqa: E402
from methods.zo_finetune.baselines.finetune import FineTune  # noqa: E402
from methods.zo_finetune.baselines.lora import LoRA  # noqa: E402
from methods.zo_finetune.baselines.mezo import MeZO  # noqa: E402
from methods.zo_finetune.baselines.zero_shot import ZeroShot  # noqa: E402
from methods.zo_finetune.finetune_io import FineTuneInputs  # noqa: E402
from methods.zo_finetune.memory_task import ModelMemory, measure, model_memory  # noqa: E402
from methods.zo_finetune.qzo import QZO  # noqa: E402
from methods.zo_finetune.training import interval_losses  # noqa: E402

needs_peft = pytest.mark.skipif(importlib.util.find_spec("peft") is None,
                                reason="LoRA needs the zo-finetune extra (peft)")


@pytest.fixture
def saved_model(tmp_path, tiny_model, tokenizer):
    tiny_model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    return tmp_path / "model"


def inputs(folder, dtype: str = "float32") -> FineTuneInputs:
    return FineTuneInputs("sst2", folder, synthetic.examples("sst2", 32, 0), synthetic.examples("sst2", 16, 1),
                          synthetic.examples("sst2", 16, 2), dtype)


def run(method, folder, dtype: str = "float32"):
    ctx = RunContext(seed=0, device="cpu", threads=1)
    return method.run(inputs(folder, dtype), ctx), ctx.measurements


@pytest.mark.parametrize("method, trainable", [
    (QZO(learning_rate=1e-4, steps=3, eval_steps=2), "scales"),
    (MeZO(learning_rate=1e-4, steps=3, eval_steps=2), "all"),
    (FineTune(optimizer="sgd", learning_rate=1e-3, steps=3, eval_steps=2), "all"),
    (FineTune(optimizer="adamw", learning_rate=1e-3, steps=3, eval_steps=2), "all"),
    pytest.param(LoRA(learning_rate=1e-3, steps=3, eval_steps=2), "adapters", marks=needs_peft),
    pytest.param(LoRA(quantized=True, learning_rate=1e-3, steps=3, eval_steps=2), "adapters", marks=needs_peft),
])
def test_each_method_trains_and_predicts_every_test_example(saved_model, method, trainable):
    output, measured = run(method, saved_model)
    assert output.predictions.shape == (16,) and set(output.predictions) <= {0, 1}
    assert output.trace.steps == 3 and [s for s, _ in output.trace.dev_accuracy] == [0, 2, 3]
    total = measured["weights_mb"].value
    assert total > 0 and measured["trainable_params"].value > 0
    if trainable == "scales":  # 4-bit codes: far fewer weight bytes than the fp32 model, no grads, no states
        assert measured["gradients_mb"].value == 0 and measured["optimizer_states_mb"].value == 0
    if method.memory_method == "ft_adamw":
        assert measured["optimizer_states_mb"].value == pytest.approx(2 * measured["gradients_mb"].value)


def test_qzo_changes_only_the_scales(saved_model):
    from methods.zo_finetune.objective import OptionScorer
    from methods.zo_finetune.quant import scale_parameters
    from methods.zo_finetune.tiny_model import load

    method = QZO(learning_rate=1e-2, steps=2, eval_steps=5)
    base, tokenizer = load(saved_model)
    model = method.prepare(base)
    frozen = {k: v.clone() for k, v in model.state_dict().items() if not k.endswith("scales")}
    scales = [s.clone() for s in scale_parameters(model)]
    scorer = OptionScorer(tokenizer)
    adaptation = method.adapt(model, scorer, scorer.encode(synthetic.examples("sst2", 16, 0)), 1e-2, seed=0)
    adaptation.step(list(range(16)))
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in frozen.items())
    assert any(not torch.equal(a, b) for a, b in zip(scales, scale_parameters(model), strict=True))


def test_zero_shot_rows_do_not_train_and_quantization_shrinks_the_weights(saved_model):
    full, measured_full = run(ZeroShot(), saved_model)
    quantized, measured_q = run(ZeroShot(quantized=True), saved_model)
    assert full.trace is None and quantized.trace is None
    assert measured_q["weights_mb"].value < 0.6 * measured_full["weights_mb"].value


def test_learning_rate_is_chosen_on_dev(saved_model):
    output, measured = run(QZO(learning_rate=[1e-5, 1e-3], steps=2, eval_steps=1), saved_model)
    assert output.learning_rate in (1e-5, 1e-3) and measured["learning_rate"].value == output.learning_rate


def test_fp16_model_runs_qzo(saved_model):
    output, _ = run(QZO(learning_rate=1e-4, steps=2, eval_steps=1), saved_model, dtype="float16")
    assert output.predictions.shape == (16,)


def test_a_diverged_run_is_restored_to_step_0_but_its_final_weights_answer_nothing(saved_model):
    """What the DDC ablation measures: the best-on-dev restore hides divergence, `final_accuracy` does not."""
    output, measured = run(QZO(learning_rate=1e6, clip=None, steps=4, eval_steps=2), saved_model, "float16")
    zero_shot_q, _ = run(ZeroShot(quantized=True), saved_model, "float16")
    assert measured["first_nan_step"].value <= 4 and measured["best_step"].value == 0
    assert np.array_equal(output.predictions, zero_shot_q.predictions)
    assert measured["final_accuracy"].value == 0 and math.isnan(measured["train_loss_at_4"].value)


def test_the_loss_curve_is_nan_from_the_interval_a_run_diverged_in():
    assert interval_losses([1.0, 3.0, 2.0, 2.0, 0.5], steps=5, eval_steps=2) == {2: 2.0, 4: 2.0, 5: 0.5}
    diverged = interval_losses([1.0, 3.0, math.nan], steps=5, eval_steps=2)
    assert diverged[2] == 2.0 and math.isnan(diverged[4]) and math.isnan(diverged[5])


def test_memory_task_measures_a_model_folder_and_counts_a_config(saved_model):
    ctx = RunContext(seed=0, device="cpu", threads=1)
    table = measure(QZO(learning_rate=1e-4), model_memory({"path": str(saved_model)}, steps=2), ctx)
    assert set(table["source"]) == {"analytic", "measured"} and "peak_rss_growth_mb" in ctx.measurements
    analytic = measure(QZO(), model_memory("llama-2-7b"), RunContext(seed=0, device="cpu", threads=1))
    scales = analytic[(analytic["component"] == "trainable_params")]["bytes"].item()
    assert f"{scales:.2e}" == "5.06e+07" and set(analytic["source"]) == {"analytic"}
    task = ModelMemory()
    instance = task.instance(model_memory("llama-2-7b"), {}, 0)
    assert task.checked(instance, analytic).equals(analytic)
    with pytest.raises(DataError, match="a second row for source 'analytic', component 'weights'"):
        task.checked(instance, pd.concat([analytic, analytic.iloc[[0]]]))


@pytest.mark.parametrize("kwargs, message", [
    ({"eps": 0.0}, "eps must be > 0"),
    ({"clip": 0.0}, "clip"),
    ({"clip": -5.0}, "clip"),
    ({"learning_rate": -1.0}, "learning_rate"),
    ({"steps": 0}, "steps"),
    ({"scales_dtype": "int8"}, "scales_dtype"),
    ({"bits": 3}, "bits must be 2, 4 or 8"),
])
def test_bad_qzo_parameters_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        QZO(**kwargs)


def test_unknown_config_and_folder_without_tokenizer_are_clear_errors(tmp_path, tiny_model):
    with pytest.raises(DataError, match="unknown model config 'llama-9b'"):
        model_memory("llama-9b")
    tiny_model.save_pretrained(tmp_path / "bare")
    with pytest.raises(DataError, match="no tokenizer"):
        run(ZeroShot(), tmp_path / "bare")


def test_predictions_table_rescores_to_the_same_accuracy(saved_model):
    from methods.zo_finetune.metrics import ACCURACY
    from methods.zo_finetune.task import PromptClassification, PromptTaskData

    task = PromptClassification()
    instance = task.instance(PromptTaskData("sst2", saved_model, (32, 16, 16)), {}, seed=0)
    output = ZeroShot().run(instance.inputs, RunContext(seed=0, device="cpu", threads=1))
    table = task.predictions(instance, output)
    expected = 100 * float(np.mean(output.predictions == instance.truth))
    assert task.score(instance, task.checked(instance, table), {"accuracy": ACCURACY})["accuracy"] == \
        pytest.approx(expected)
    shuffled = table.sample(frac=1.0, random_state=0).assign(label=0)  # rows matched by example; labels: the instance's
    assert task.score(instance, task.checked(instance, shuffled), {"accuracy": ACCURACY})["accuracy"] == \
        pytest.approx(expected)
    with pytest.raises(DataError, match=r"1 test sample\(s\) have no row, e.g. 0"):
        task.checked(instance, table.iloc[1:])
    with pytest.raises(DataError, match=r"\.5 is not an integer"):
        task.checked(instance, table.assign(prediction=table["prediction"] + 0.5))


def test_qzo_with_spsa_trains_the_unquantized_parameters_too(saved_model):
    _, scales_only = run(QZO(learning_rate=1e-4, steps=1, eval_steps=1), saved_model)
    _, with_spsa = run(QZO(learning_rate=1e-4, steps=1, eval_steps=1, bits=2, group_size=None,
                           train_unquantized=True), saved_model)
    assert with_spsa["trainable_params"].value > scales_only["trainable_params"].value
