"""Evaluating a model on a problem set: loaders, the predictions table and its metrics, both backends on a
tiny saved model (each scoring the other's generations the same way), bad model folders, the suite."""
from __future__ import annotations

import os

# datasets, transformers and huggingface_hub read these once, at import; no test may reach a hub.
for _name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_name] = "1"

import json  # noqa: E402
import logging  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytest.importorskip("math_verify", reason="the harness scorer needs math-verify")

import methods.math_reasoning  # noqa: E402,F401  (registers the family while it has no entry point)
from harness.cli import main  # noqa: E402
from harness.context import RunContext  # noqa: E402
from harness.errors import DataError  # noqa: E402
from methods.math_reasoning.answers import average_at_k, check_answer  # noqa: E402
from methods.math_reasoning.evaluation import (ACCURACY, COLUMNS, UNPARSED, Evaluation,  # noqa: E402
                                               EvaluationOutput, ProblemSet, generated, gsm8k_jsonl,
                                               math_jsonl, problems_jsonl)
from methods.math_reasoning.model_eval import ModelEvaluation  # noqa: E402
from methods.math_reasoning.problems import Problem, write_jsonl  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
METRICS = {"accuracy": ACCURACY, "unparsed": UNPARSED}


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_math_and_gsm8k_files_load_through_the_task(tmp_path):
    math_file = _write_lines(tmp_path / "math.jsonl", [
        json.dumps({"problem": "What is $1+1$?", "solution": "It is $\\boxed{2}$.", "level": "Level 1",
                    "type": "Algebra"}),
        json.dumps({"problem": "Half of 1?", "solution": "So \\boxed{\\frac{1}{2}}.", "level": "Level 2",
                    "type": "Prealgebra"}),
    ])
    gsm_file = _write_lines(tmp_path / "gsm8k.jsonl", [
        json.dumps({"question": "Tom has 3 apples and buys 4. How many?", "answer": "3 + 4 = 7\n#### 7"}),
        "{not json",
        json.dumps({"question": "How many cents in $12?", "answer": "12 * 100 = 1200\n#### 1,200"}),
    ])
    task = Evaluation()
    math_set = math_jsonl(str(math_file))
    assert [p.answer for p in task.instance(math_set, {}, 0).inputs.problems] == ["2", "\\frac{1}{2}"]
    gsm_set = gsm8k_jsonl(str(gsm_file), on_error="skip")
    instance = task.instance(gsm_set, {}, 0)
    assert [p.answer for p in instance.inputs.problems] == ["7", "1200"]
    assert [s.line for s in gsm_set.skipped] == [2] and gsm_set.file == str(gsm_file)
    with pytest.raises(DataError, match=r"gsm8k.jsonl:2: not valid JSON"):
        gsm8k_jsonl(str(gsm_file))


def test_problem_jsonl_round_trips(tmp_path):
    problems = generated("ood", 3).problems
    loaded = problems_jsonl(str(write_jsonl(problems, tmp_path / "p.jsonl")))
    assert loaded.problems == problems and loaded.skipped == ()


def test_generated_sets_are_fixed_and_disjoint_from_training_seeds():
    in_dist, out_dist = generated("id", 50), generated("ood", 50)
    assert in_dist == generated("id", 50)
    assert {p.level for p in in_dist.problems} <= {1, 2, 3} and {p.level for p in out_dist.problems} == {4}
    assert not {p.question for p in in_dist.problems} & {p.question for p in out_dist.problems}


def test_an_empty_problem_set_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="empty problem set"):
        problems_jsonl(str(_write_lines(tmp_path / "empty.jsonl", [""])))
    with pytest.raises(DataError, match="count must be a positive"):
        generated("id", 0)
    with pytest.raises(DataError, match="is empty"):
        ProblemSet("nothing", ())
    with pytest.raises(DataError, match="split must be 'id' or 'ood'"):
        generated("test", 5)


PROBLEMS = (Problem("a", "q", "2"), Problem("b", "q", "1/2"), Problem("c", "q", "No"))
FIXED = [["The final answer is 2.", "The final answer is 3."],        # one of two right
         ["so \\boxed{0.5}", ""],                                       # right (math-verify), no answer
         ["The final answer is No.", "The final answer is Yes."]]       # prose: string comparison


def test_predictions_table_and_metrics_from_fixed_outputs():
    task = Evaluation()
    instance = task.instance(ProblemSet("fixed", PROBLEMS), {}, 0)
    table = task.predictions(instance, EvaluationOutput(FIXED))
    assert list(table.columns) == list(COLUMNS) and len(table) == 6
    assert list(table["sample"]) == [0, 1] * 3
    verdicts = [[check_answer(p.answer, g).correct for g in samples]
                for p, samples in zip(PROBLEMS, FIXED, strict=True)]
    assert list(table["correct"]) == [v for row in verdicts for v in row]
    scores = task.score(instance, table, METRICS)
    assert scores["accuracy"] == pytest.approx(average_at_k(verdicts)) == pytest.approx(100 * 3 / 6)


def test_unparsed_rows_are_counted_never_silently_scored():
    task = Evaluation()
    instance = task.instance(ProblemSet("fixed", PROBLEMS), {}, 0)
    table = task.predictions(instance, EvaluationOutput(FIXED))
    unparsed_rows = table[~table["parsed"]]
    # the empty generation (no answer) and both prose rows; "No" against "No" is right by string comparison
    assert list(unparsed_rows["generation"]) == ["", FIXED[2][0], FIXED[2][1]]
    assert list(unparsed_rows["correct"]) == [False, True, False]
    assert task.score(instance, table, METRICS)["unparsed"] == pytest.approx(50.0)


def test_bootstrap_draws_problems_with_all_their_samples():
    task = Evaluation()
    instance = task.instance(ProblemSet("fixed", PROBLEMS), {}, 0)
    table = task.predictions(instance, EvaluationOutput(FIXED))
    draw = task.resample(instance, np.random.default_rng(1))
    expected = np.mean([{"a": 50.0, "b": 50.0, "c": 50.0}[i] for i in draw.truth])
    checked = task.checked(instance, table)
    assert task.score(draw, checked, {"accuracy": ACCURACY})["accuracy"] == pytest.approx(expected)


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t[t["id"] != "c"], "1 test sample(s) have no row, e.g. 'c'"),
    (lambda t: t.assign(sample=0), "a second row for id 'a', sample 0"),
    (lambda t: t.assign(id=t["id"].replace("b", "z")), "sample 'z' is not a test sample"),
    (lambda t: t.drop(columns="parsed"), "no column 'parsed'"),
    (lambda t: t.assign(correct="yes"), "'yes' is not true or false"),
])
def test_the_engine_refuses_a_table_that_does_not_answer_each_problem_k_times(change, message):
    task = Evaluation()
    instance = task.instance(ProblemSet("fixed", PROBLEMS), {}, 0)
    table = task.predictions(instance, EvaluationOutput(FIXED))
    assert task.checked(instance, table).equals(table)
    with pytest.raises(DataError, match=re.escape(message)):
        task.checked(instance, change(table))


@pytest.mark.parametrize("params, message", [
    ({"backend": "vllm"}, "backend must be 'harness' or 'lm_eval'"),
    ({"temperature": 0.0, "samples": 4}, "at temperature 0 would repeat"),
    ({"backend": "lm_eval", "temperature": 0.6}, "lm_eval backend decodes greedily"),
    ({"model": {"path": "x", "seed": 0}}, "give one or the other"),
    ({"model": {"config": {"layers": 2}}}, "StudentConfig fields"),
    ({"samples": 0}, "samples must be >= 1"),
])
def test_method_parameters_are_checked_before_anything_runs(params, message):
    with pytest.raises(ValueError, match=message):
        ModelEvaluation(**params)


def test_committed_suite_validates(capsys):
    assert main(["validate", str(REPO / "suites" / "math_eval.yaml")]) == 0


# --- both backends on a tiny randomly initialised GPT-2, saved as save_pretrained writes it ---

@pytest.fixture(scope="module")
def tiny_parts():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from methods.math_reasoning.tiny_model import StudentConfig, build_model, build_tokenizer

    torch.set_num_threads(1)
    torch.manual_seed(0)
    tokenizer = build_tokenizer()
    return build_model(StudentConfig(hidden_size=32, num_layers=2, num_heads=2), tokenizer).eval(), tokenizer


def _save(folder: Path, parts, *, tokenizer: bool = True, eos: bool = True) -> Path:
    import copy

    model, tok = parts
    model.save_pretrained(folder)
    if tokenizer:
        if not eos:
            tok = copy.deepcopy(tok)
            tok.eos_token = None
        tok.save_pretrained(folder)
    return folder


def _context() -> RunContext:
    return RunContext(seed=0, device="cpu", threads=1, log=logging.getLogger("test.model_eval"))


def _run(method: ModelEvaluation, problem_set: ProblemSet):
    ctx = _context()
    output = method.run(problem_set, ctx)
    task = Evaluation()
    instance = task.instance(problem_set, {}, ctx.seed)
    table = task.predictions(instance, output)
    return table, task.score(instance, table, METRICS), {k: m.value for k, m in ctx.measurements.items()}


def _skipping_set(tmp_path: Path) -> ProblemSet:
    problems = generated("id", 5).problems
    path = write_jsonl(problems, tmp_path / "problems.jsonl")
    path.write_text(path.read_text() + "{broken\n")
    return problems_jsonl(str(path), on_error="skip")


@pytest.mark.slow  # 5-15 s on 2 busy cores: lm-eval's import, model load and its two generation passes
def test_both_backends_generate_the_same_and_score_alike(tmp_path, tiny_parts, caplog):
    folder = _save(tmp_path / "model", tiny_parts)
    problem_set = _skipping_set(tmp_path)
    common = {"model": {"path": str(folder)}, "max_new_tokens": 12, "batch_size": 4}
    with caplog.at_level(logging.WARNING, logger="test.model_eval"):
        harness_table, harness_scores, harness_measures = _run(ModelEvaluation(backend="harness", **common),
                                                               problem_set)
    assert "problems.jsonl:6" in caplog.text and harness_measures["skipped_lines"] == 1
    lm_table, lm_scores, lm_measures = _run(ModelEvaluation(backend="lm_eval", **common), problem_set)
    assert list(lm_table["generation"]) == list(harness_table["generation"])
    assert lm_scores == harness_scores
    assert lm_measures["harness_accuracy"] == pytest.approx(lm_scores["accuracy"])
    assert lm_measures["agreement"] == 100.0 and lm_measures["lm_eval_task_mismatch"] == 0
    assert lm_measures["lm_eval_math_verify"] == pytest.approx(lm_scores["accuracy"])
    for measures in (harness_measures, lm_measures):
        assert measures["problems_per_s"] > 0 and measures["patched_special_tokens"] == 0
    print(f"problems/s harness {harness_measures['problems_per_s']:.2f}, lm-eval {lm_measures['problems_per_s']:.2f}")


def test_sampled_decoding_returns_k_samples_per_problem(tmp_path, tiny_parts):
    folder = _save(tmp_path / "model", tiny_parts)
    problem_set = ProblemSet("five", generated("id", 5).problems)
    method = ModelEvaluation(model={"path": str(folder)}, temperature=1.0, samples=3, max_new_tokens=8)
    table, _, _ = _run(method, problem_set)
    assert len(table) == 15 and list(table["sample"][:3]) == [0, 1, 2]
    assert len(set(table["generation"])) > 5  # sampled, not repeated


def test_model_folder_without_tokenizer_is_a_data_error(tmp_path, tiny_parts):
    folder = _save(tmp_path / "model", tiny_parts, tokenizer=False)
    with pytest.raises(DataError, match="no tokenizer files"):
        ModelEvaluation(model={"path": str(folder)}).run(generated("id", 2), _context())
    with pytest.raises(DataError, match="model folder does not exist"):
        ModelEvaluation(model={"path": str(tmp_path / "absent")}).run(generated("id", 2), _context())


def test_tokenizer_without_eos_is_patched_and_runs(tmp_path, tiny_parts):
    folder = _save(tmp_path / "model", tiny_parts, eos=False)
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(folder).eos_token is None
    _, _, measures = _run(ModelEvaluation(model={"path": str(folder)}, max_new_tokens=4), generated("id", 2))
    assert measures["patched_special_tokens"] == 1  # eos, from the vocabulary; bos and pad were set
    assert json.loads((folder / "tokenizer_config.json").read_text())["eos_token"] is None  # folder untouched
