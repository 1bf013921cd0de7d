"""The whole path on tiny models: a student of the source's own shape inherits it exactly (selection, and MASA
at full rank), smaller students get the planned shapes, and a tiny run scores through the predictions table."""
from __future__ import annotations

from dataclasses import replace

import pytest

pytest.importorskip("transformers")

import torch  # noqa: E402

from methods.model_init import metrics  # noqa: E402
from methods.model_init.baselines.pruning import MagnitudePrune, StructuredPrune  # noqa: E402
from methods.model_init.baselines.selection import WeightSelection  # noqa: E402
from methods.model_init.inherit import evenly, head_rows, magnitude_plan, top  # noqa: E402
from methods.model_init.masa import Masa  # noqa: E402
from methods.model_init.models import Shape, build_model  # noqa: E402
from methods.model_init.task import Pretrain  # noqa: E402
from tests.method_runs import context  # noqa: E402

SOURCE = Shape(hidden=16, layers=2, heads=2, ffn=32)
CTX = context()


def _inputs(student: Shape):
    instance = Pretrain().tiny_instance(0)
    return replace(instance.inputs, student=student)


def _logits(model, ids):
    with torch.no_grad():
        return model(input_ids=ids).logits


@pytest.mark.parametrize("method", [WeightSelection(), Masa(rank=16, extract_steps=0, calib_tokens=32)])
def test_a_student_of_the_sources_shape_reproduces_it(method):
    torch.manual_seed(0)
    inputs = _inputs(SOURCE)
    vocab = len(inputs.corpus.tokenizer)
    source, student = build_model(SOURCE, vocab).eval(), build_model(SOURCE, vocab).eval()
    method.initialise(student, source, inputs, CTX)
    ids = torch.randint(4, vocab, (3, 9))
    torch.testing.assert_close(_logits(student, ids), _logits(source, ids), atol=1e-5, rtol=0)


@pytest.mark.parametrize("method", [WeightSelection(), MagnitudePrune(), StructuredPrune(calib_tokens=32),
                                    Masa(rank=8, extract_steps=2, calib_tokens=32, subspace_rank=2)])
def test_a_smaller_student_gets_its_shape_and_named_source_layers(method):
    student_shape = Shape(hidden=8, layers=1, heads=1, ffn=12)
    inputs = _inputs(student_shape)
    vocab = len(inputs.corpus.tokenizer)
    torch.manual_seed(0)
    source, student = build_model(SOURCE, vocab).eval(), build_model(student_shape, vocab).eval()
    before = {k: v.clone() for k, v in student.state_dict().items()}
    origins = method.initialise(student, source, inputs, CTX)
    assert len(origins) == 1 and set(origins[0]) <= {0, 1}
    mlp = student.model.layers[0].mlp
    assert mlp.gate_proj.weight.shape == (12, 8) and mlp.down_proj.weight.shape == (8, 12)
    assert not torch.equal(before["model.layers.0.mlp.up_proj.weight"], mlp.up_proj.weight)


@pytest.mark.slow
def test_a_tiny_run_is_scored_from_its_predictions():
    task = Pretrain()
    instance = task.tiny_instance(0)
    out = Masa(**Masa.params_model.tiny).run(instance.inputs, context())
    scores = task.score(instance, task.predictions(instance, out), {
        "acc": metrics.ACCURACY, "steps": metrics.STEPS_TO_THRESHOLD, "sd": metrics.SPECTRAL_DISTANCE,
        "cka": metrics.CKA})
    assert 0 <= scores["acc"] <= 1 and scores["steps"] in (0.0, 2.0, 4.0, 6.0) and 0 <= scores["cka"] <= 1 + 1e-9
    assert list(out.curve_steps) == [0.0, 2.0, 4.0]


@pytest.mark.parametrize(("student_shape", "message"), [(Shape(hidden=32, layers=1, heads=4, ffn=16), "exceeds"),
                                                        (Shape(hidden=8, layers=1, heads=2, ffn=16), "head width")])
def test_a_student_that_cannot_inherit_is_refused_before_any_work(student_shape, message):
    vocab = len(_inputs(SOURCE).corpus.tokenizer)
    source, student = build_model(SOURCE, vocab), build_model(student_shape, vocab)
    for method in (WeightSelection(), MagnitudePrune(), Masa(rank=8, extract_steps=2, calib_tokens=32)):
        with pytest.raises(ValueError, match=message):
            method.initialise(student, source, _inputs(student_shape), CTX)


def test_masa_with_random_ffns_differs_from_masa_in_the_ffns_only():
    """The ablation that isolates the genes: the same inherited non-FFN weights, the FFNs left as drawn."""
    student_shape = Shape(hidden=8, layers=1, heads=1, ffn=12)
    inputs = _inputs(student_shape)
    vocab = len(inputs.corpus.tokenizer)
    torch.manual_seed(0)
    source = build_model(SOURCE, vocab).eval()
    students = []
    for ffn in ("genes", "random"):
        torch.manual_seed(1)
        student = build_model(student_shape, vocab).eval()
        drawn = {k: v.clone() for k, v in student.state_dict().items()}
        Masa(rank=8, extract_steps=2, calib_tokens=32, subspace_rank=2, ffn=ffn).initialise(student, source, inputs,
                                                                                            CTX)
        students.append((drawn, student.state_dict()))
    (_, genes), (drawn, random_ffn) = students
    for name, value in random_ffn.items():
        if ".mlp." in name:
            assert torch.equal(value, drawn[name]) and not torch.equal(value, genes[name])
        else:
            assert torch.equal(value, genes[name])
    assert not torch.equal(random_ffn["model.embed_tokens.weight"], drawn["model.embed_tokens.weight"])


def test_masa_with_magnitude_channels_takes_prunings_channels_and_heads_and_cuts_its_genes_to_them():
    """`rest: magnitude`: the non-FFN weights are magnitude pruning's choice (the largest embedding columns and
    heads) of the first layer of each gene group, and the gene FFNs read the same channels."""
    student_shape = Shape(hidden=8, layers=1, heads=1, ffn=12)
    inputs = _inputs(student_shape)
    torch.manual_seed(0)
    source = build_model(SOURCE, len(inputs.corpus.tokenizer)).eval()
    torch.manual_seed(1)
    student = build_model(student_shape, len(inputs.corpus.tokenizer)).eval()
    Masa(rank=8, extract_steps=2, calib_tokens=32, subspace_rank=2, rest="magnitude").initialise(
        student, source, inputs, CTX)
    plan = magnitude_plan(source, SOURCE, student_shape, [0])
    embed = source.model.embed_tokens.weight
    assert torch.equal(plan.channels, top(embed.norm(dim=0), 8))
    assert torch.equal(student.model.embed_tokens.weight, embed[:, plan.channels])
    assert not torch.equal(plan.channels, evenly(SOURCE.hidden, 8))  # not uniform selection's channels
    rows = head_rows(plan.heads[0], SOURCE.head_dim)
    assert torch.equal(student.model.layers[0].self_attn.q_proj.weight,
                       source.model.layers[0].self_attn.q_proj.weight[rows][:, plan.channels])
    assert student.model.layers[0].mlp.gate_proj.weight.shape == (12, 8)
