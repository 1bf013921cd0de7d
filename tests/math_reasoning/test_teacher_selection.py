"""The teacher-selection task: the pool's data layout, its scoring from a hand table, the cached ground
truth, the shared gradient cache, bad input as DataError, and a tiny suite end to end."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("math_verify")  # the math-reasoning extra: teachers and students are scored with it

from harness import DataError, Instance  # noqa: E402
from harness.context import RunContext  # noqa: E402
from methods.math_reasoning import generator, teacher_selection  # noqa: E402
from methods.math_reasoning.teacher_selection import (  # noqa: E402
    REGRET,
    SPEARMAN,
    DistillRecipe,
    PoolInputs,
    TeacherScores,
    TeacherSelection,
    ground_truth,
    scoring_data,
    teacher_pool,
)
from methods.math_reasoning.teachers import Teacher  # noqa: E402

TINY = {"hidden_size": 32, "num_layers": 1, "num_heads": 2, "examples": 256, "steps": 30, "eval_examples": 10}
SYNTHETIC = [{"kind": "cot"}, {"kind": "answer_only"}, {"kind": "random"}]
SMALL_POOL = {"prompts": 10, "responses": 2, "distill_questions": 64, "sft_steps": 10, "test": 20}


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("grace-cache")


@pytest.fixture(scope="module")
def student_dir(cache) -> Path:
    from methods.math_reasoning import tiny_model

    torch.set_num_threads(1)
    return tiny_model.prepare(cache, config=tiny_model.StudentConfig(**TINY))


def test_scoring_set_is_n_prompts_by_m_responses_laid_out_prompt_by_prompt():
    from methods.math_reasoning import tiny_model

    tokenizer = tiny_model.build_tokenizer()
    prompts = generator.problem_set(12, 61_000)
    data = scoring_data(Teacher("noisy", "noisy", noise=0.5), tokenizer, prompts, 3, seed=0)
    assert len(data.examples) == len(data.responses) == 36 and len(data.questions) == 12
    assert data.prompt_ids.tolist() == [p for p in range(12) for _ in range(3)]
    for (ids, prompt_length), prompt_id in zip(data.examples, data.prompt_ids, strict=True):
        prompt = tokenizer.decode(ids[:prompt_length])
        assert prompt.endswith("### Solution:\n") and prompts[prompt_id].question in prompt
        assert ids[-1] == tokenizer.eos_token_id


def hand_instance(accuracies):
    teachers = tuple(type("T", (), {"teacher": f"t{i}"})() for i in range(len(accuracies)))
    return Instance(inputs=PoolInputs(Path("student"), teachers), truth=np.asarray(accuracies, dtype=float))


def test_spearman_and_regret_from_a_hand_table():
    task, metrics = TeacherSelection(), {"spearman": SPEARMAN, "regret": REGRET}
    instance = hand_instance([40.0, 30.0, 20.0, 10.0])
    table = pd.DataFrame({"teacher": ["t0", "t1", "t2", "t3"], "score": [1.0, 2.0, 3.0, 4.0]})
    assert task.score(instance, task.checked(instance, table), metrics) == {"spearman": 100.0, "regret": 0.0}
    table["score"] = [4.0, 3.0, 2.0, 1.0]
    assert task.score(instance, table, metrics) == {"spearman": -100.0, "regret": 30.0}
    table["score"] = [2.0, 1.0, 3.0, 4.0]  # picks the second best: regret 10; one swapped pair: rho = 0.8
    assert task.score(instance, table, metrics) == pytest.approx({"spearman": 80.0, "regret": 10.0})


def test_scores_pair_with_the_instances_accuracies_by_teacher_name_not_by_the_tables_truth():
    task, metrics = TeacherSelection(), {"spearman": SPEARMAN, "regret": REGRET}
    instance = hand_instance([40.0, 30.0, 20.0, 10.0])
    shuffled = pd.DataFrame({"teacher": ["t3", "t1", "t0", "t2"], "score": [4.0, 2.0, 1.0, 3.0],
                             "student_accuracy": [99.0, 0.0, 0.0, 0.0]})
    assert task.score(instance, task.checked(instance, shuffled), metrics) == {"spearman": 100.0, "regret": 0.0}


@pytest.mark.parametrize(("table", "message"), [
    ({"teacher": ["t0", "t1"], "score": [1.0, 2.0]}, "1 test sample(s) have no row, e.g. 't2'"),
    ({"teacher": ["t0", "t1", "t2", "t9"], "score": [1.0, 2.0, 3.0, 4.0]}, "sample 't9' is not a test sample"),
    ({"teacher": ["t0", "t1", "t2"], "score": [1.0, np.inf, 3.0]}, "holds inf, not a finite number"),
    ({"teacher": ["t0", "t1", "t2"], "value": [1.0, 2.0, 3.0]}, "no column 'score'"),
])
def test_the_engine_refuses_a_table_without_one_finite_score_per_teacher(table, message):
    instance = hand_instance([40.0, 30.0, 20.0])
    with pytest.raises(DataError, match=re.escape(message)):
        TeacherSelection().checked(instance, pd.DataFrame(table))


def test_predictions_have_one_row_per_teacher_with_the_truth_beside_the_score():
    teachers = tuple(type("T", (), {"teacher": n, "kind": "cot", "temperature": t})() for n, t in
                     (("a", None), ("b", 0.6)))
    instance = Instance(inputs=PoolInputs(Path("s"), teachers), truth=np.array([50.0, 60.0]))
    table = TeacherSelection().predictions(instance, TeacherScores([2.0, 1.0]))
    assert table.columns.tolist() == ["teacher", "kind", "temperature", "score", "student_accuracy"]
    assert table["student_accuracy"].tolist() == [50.0, 60.0] and np.isnan(table["temperature"][0])


def test_ground_truth_is_computed_once_then_read_from_the_cache(tmp_path, monkeypatch):
    student = tmp_path / "student"
    student.mkdir()
    (student / "model.safetensors").write_bytes(b"weights")
    calls = []

    def fake(student_dir, teacher, recipe, seed, cache_dir):
        calls.append(teacher.name)
        return {"teacher": teacher.name, "student_accuracy": 42.0}

    monkeypatch.setattr(teacher_selection, "distill_and_test", fake)
    teacher, recipe = Teacher("cot", "cot"), DistillRecipe(distill_questions=8, steps=2, test=4)
    first = ground_truth(student, teacher, recipe, cache_dir=tmp_path)
    second = ground_truth(student, teacher, recipe, cache_dir=tmp_path)
    assert first == second == {"teacher": "cot", "student_accuracy": 42.0} and calls == ["cot"]
    stored = list((tmp_path / "math-grace-truth").glob("*/record.json"))
    assert len(stored) == 1 and json.loads(stored[0].read_text())["student_accuracy"] == 42.0
    ground_truth(student, teacher, DistillRecipe(distill_questions=9, steps=2, test=4), cache_dir=tmp_path)
    assert calls == ["cot", "cot"]  # another recipe is another entry


@pytest.mark.parametrize(("args", "field"), [
    ({"teachers": [{"kind": "oracle"}]}, "args.teachers[0].kind"),
    ({"teachers": [{"kind": "lm", "temperatures": [0.5, -0.1], "model": {"path": "x"}}]},
     "args.teachers[0].temperatures"),
    ({"prompts": 9}, "args.prompts"),
    ({"teachers": [{"kind": "cot", "nosie": 0.1}]}, "args.teachers[0].nosie"),
    ({"teachers": [{"kind": "noisy", "noise": 1.5}]}, "args.teachers[0].noise"),
])
def test_bad_pool_arguments_are_data_errors_naming_the_field(args, field, tmp_path):
    with pytest.raises(DataError) as error:
        teacher_pool(cache_dir=tmp_path, **args)
    assert error.value.field == field
    assert not list(tmp_path.glob("math-tiny-*"))  # refused before any model is trained


@pytest.fixture(scope="module")
def pool(student_dir, cache):
    return teacher_pool({"path": str(student_dir)}, SYNTHETIC, cache_dir=cache, **SMALL_POOL)


@pytest.mark.slow  # the module's tiny student and pool: about 20 s on an idle core, once
def test_each_seed_scores_its_own_prompts_against_one_ground_truth(pool):
    first, second = (TeacherSelection().instance(pool, {}, seed) for seed in (0, 1))
    assert np.array_equal(first.truth, second.truth)
    assert all(a.teacher == b.teacher and not set(a.questions) & set(b.questions)
               for a, b in zip(first.inputs.teachers, second.inputs.teachers, strict=True))
    again = TeacherSelection().instance(pool, {}, 0)
    assert [t.digest for t in again.inputs.teachers] == [t.digest for t in first.inputs.teachers]


@pytest.mark.slow
def test_the_gradient_methods_share_cached_projected_gradients(pool):
    from methods.math_reasoning.baselines.g_norm import GNorm
    from methods.math_reasoning.grace_method import Grace

    inputs = TeacherSelection().instance(pool, {}, 0).inputs
    first = RunContext(seed=0, device="cpu", threads=1)
    scores = Grace(dim=64).run(inputs, first).scores
    assert [first.measurements[f"cached_{t}"].value for t in ("cot", "answer_only", "random")] == [0.0] * 3
    again = RunContext(seed=0, device="cpu", threads=1)
    GNorm(dim=64).run(inputs, again)
    assert [again.measurements[f"cached_{t}"].value for t in ("cot", "answer_only", "random")] == [1.0] * 3
    other_seed = RunContext(seed=1, device="cpu", threads=1)
    Grace(dim=64).run(inputs, other_seed)
    assert other_seed.measurements["cached_cot"].value == 0.0  # the seed is the projection seed
    assert np.all(np.isfinite(scores)) and first.measurements["score_cot"].value == scores[0]


@pytest.mark.slow
def test_teacher_accuracy_orders_the_synthetic_teachers_and_initial_loss_is_a_mean_nll(pool):
    from methods.math_reasoning.baselines.initial_loss import InitialLoss
    from methods.math_reasoning.baselines.teacher_accuracy import TeacherAccuracy

    inputs = TeacherSelection().instance(pool, {}, 0).inputs
    ctx = RunContext(seed=0, device="cpu", threads=1)
    accuracy = TeacherAccuracy().run(inputs, ctx).scores
    assert accuracy[0] == accuracy[1] == -100.0 and accuracy[2] > -20.0  # cot, answer_only right; random not
    loss = InitialLoss().run(inputs, ctx).scores
    # The fixture's student is barely trained, so the order of the losses says little; they are mean token
    # NLLs, so they lie between 0 and log(vocabulary) plus a margin for a model worse than uniform.
    assert all(0.0 < value < 2 * np.log(400) for value in loss)


@pytest.mark.slow
def test_a_tiny_suite_runs_and_reports_spearman_and_regret(student_dir, tmp_path, monkeypatch, capsys):
    """Inline, so the ground truth can be a fixed table: the tiny student's real one is 0 % for every teacher
    (a constant, whose rank correlation is undefined); the real SFT path runs in the `pool` fixture."""
    from harness.cli import main

    truth = {"cot": 60.0, "answer_only": 30.0, "random": 0.0}
    monkeypatch.setattr(teacher_selection, "distill_and_test",
                        lambda student, teacher, *args: {"student_accuracy": truth[teacher.name]})
    pool_args = json.dumps({"student": {"path": str(student_dir)}, "teachers": SYNTHETIC,
                            "cache_dir": str(tmp_path / "cache"), **SMALL_POOL})
    suite = tmp_path / "grace_tiny.yaml"
    suite.write_text(textwrap.dedent(f"""\
        schema_version: 1
        suite: grace_tiny
        task: math_reasoning.teacher_selection
        defaults: {{seeds: [0], threads: 1, timeout: 5m}}
        datasets:
          pool: {{loader: teacher_pool, args: {pool_args}}}
        metrics: [spearman, regret]
        methods:
          grace: {{impl: grace, params: {{dim: 64}}}}
          g_vendi: {{impl: g_vendi, params: {{dim: 64}}}}
          teacher_accuracy: {{impl: teacher_accuracy}}
        report: {{metric: spearman, measures: [score_cot, gradient_s_cot]}}
        """))
    store = tmp_path / "results.sqlite"
    assert main(["run", str(suite), "--store", str(store), "--executor", "inline"]) == 0
    out = tmp_path / "report"
    assert main(["report", str(suite), "--store", str(store), "--out", str(out), "--format", "md,csv"]) == 0
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["status"] == "ok").all() and len(runs) == 3
    assert runs["metric.regret"].isin([0.0, 30.0, 60.0]).all() and runs["metric.spearman"].abs().le(100).all()
    accuracy = runs.set_index("method").loc["teacher_accuracy"]
    assert accuracy["metric.regret"] == 0.0 and accuracy["metric.spearman"] == pytest.approx(86.6, abs=0.1)
    from methods.math_reasoning.grace_report import teacher_table

    table = teacher_table(out / "runs.csv", store)
    assert table["teacher"].tolist() == ["cot", "answer_only", "random"]
    assert table["student acc"].tolist() == [60.0, 30.0, 0.0] and table["teacher acc"].tolist()[:2] == [100.0, 100.0]
    assert set(table.columns) >= {"GRACE", "G-Vendi"} and (table["G-Vendi"] >= 0).all()


def test_temperature_sweep_plots_each_lm_teacher_and_refuses_a_pool_without_one(tmp_path):
    from methods.math_reasoning.grace_report import markdown, temperature_plot

    table = pd.DataFrame({"teacher": ["cot", "lm_t0.3", "lm_t1"], "temperature": [np.nan, 0.3, 1.0],
                          "GRACE": [1.0, 2.0, 3.0], "student acc": [50.0, 40.0, 30.0]})
    assert temperature_plot(table, tmp_path / "sweep.png").stat().st_size > 5_000
    assert "| cot | — | 1 | 50 |" in markdown(table)
    with pytest.raises(ValueError, match="no LM teacher"):
        temperature_plot(table.iloc[:1], tmp_path / "none.png")


def test_the_committed_suite_validates(capsys):
    from harness.cli import main

    assert main(["validate", str(Path(__file__).resolve().parents[2] / "suites" / "math_grace.yaml")]) == 0
