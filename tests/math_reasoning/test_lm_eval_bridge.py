"""lm-eval bridge: lm-eval's own scoring agrees with the harness scorer sample by sample; local hf models run."""
from __future__ import annotations

import os

# datasets, transformers and huggingface_hub read these once, at import; no test may reach a hub.
for _name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_name] = "1"

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("lm_eval", reason="the bridge needs lm-eval 0.4.13")
pytest.importorskip("math_verify", reason="both scoring routes need math-verify")

from lm_eval.api.model import LM  # noqa: E402

from harness.errors import DataError  # noqa: E402
from methods.math_reasoning.answers import check_answer, normalize_answer  # noqa: E402
from methods.common.hf_models import prepare_model  # noqa: E402
from methods.math_reasoning.lm_eval_bridge import evaluate, write_task  # noqa: E402
from methods.math_reasoning.problems import Problem, write_jsonl  # noqa: E402

# (gold, fixed generation, the extraction rule that fires, or None when none does)
FIXED = [
    ("1/2", "Final Answer: The final answer is $\\frac{1}{2}$. I hope it is correct.", "final-answer"),
    ("18", "She makes 9 * 2 = 18 dollars.\nThe final answer is 18.", "final-answer"),
    ("42", "The final answer is 41.", "final-answer"),
    ("0.5", "The final answer is 1/2.", "final-answer"),
    ("\\sqrt{2}", "Thus the side is \\boxed{\\sqrt{2}}.", "boxed"),
    ("7", "We get \\boxed{8}.", "boxed"),
    ("12", "The answer is 12.", "answer-is"),
    ("1234", "Adding up gives 1,000 + 234 = 1,234", "flexible-extract"),
    ("2500", "There are 2,500 ways in total.", "flexible-extract"),
    ("-3", "so x = -3", "flexible-extract"),
    ("5", "", None),
    ("5", "%%% ??? blah", None),
    ("2", "The final answer is $2$. Earlier I wrote \\boxed{5}.", "final-answer"),
]
# By design exact_match compares strings and math-verify compares values.
EXACT_MATCH_MISSES_EQUIVALENT_FORMS = {0: "\\frac{1}{2} vs 1/2", 3: "1/2 vs 0.5"}
# By design our extractor stops at "final answer is"; math-verify, given the whole generation, prefers the box.
MATH_VERIFY_PREFERS_LATER_BOX = {12}


class FixedGenerations(LM):
    """Answers each problem with a fixed text, looked up by the problem's id. lm-eval's `LM` interface also
    asks for the two log-likelihood calls; the bridge writes only `generate_until` tasks, so they are never
    called, and raise if a task ever asks for them."""

    def __init__(self, generations: dict[str, str]) -> None:
        super().__init__()
        self.generations = generations

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        return [self.generations[request.doc["id"]] for request in requests]

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("generation tasks only")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("generation tasks only")


@pytest.fixture(scope="module")
def fixed_run(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("fixed")
    problems = [Problem(id=f"p{index}", question=f"Question {index}", answer=gold)
                for index, (gold, _, _) in enumerate(FIXED)]
    tasks = write_task(write_jsonl(problems, folder / "problems.jsonl"), folder / "tasks", "fixed")
    model = FixedGenerations({f"p{index}": generation for index, (_, generation, _) in enumerate(FIXED)})
    return evaluate(model, folder / "tasks", [tasks.tag])


def _scores(run: dict, metric: str) -> dict[tuple[int, str], float]:
    return {(record["doc_id"], record["filter"]): record["metrics"][metric]
            for record in run["samples"] if metric in record["metrics"]}


def test_lm_eval_math_verify_equals_the_harness_verdict_per_sample(fixed_run) -> None:
    lm_eval_scores = _scores(fixed_run, "math_verify")
    assert len(lm_eval_scores) == len(FIXED)
    for doc_id, (gold, generation, _) in enumerate(FIXED):
        harness = check_answer(gold, generation).correct
        if doc_id in MATH_VERIFY_PREFERS_LATER_BOX:
            assert (harness, lm_eval_scores[doc_id, "none"]) == (True, 0)
        else:
            assert lm_eval_scores[doc_id, "none"] == int(harness), generation


def test_lm_eval_exact_match_equals_the_harness_verdict_per_sample(fixed_run) -> None:
    lm_eval_scores = _scores(fixed_run, "exact_match")
    filters = {name for _, name in lm_eval_scores}
    assert filters == {"final-answer", "boxed", "answer-is", "flexible-extract"}
    for doc_id, (gold, generation, rule) in enumerate(FIXED):
        harness = check_answer(gold, generation)
        if rule is None:
            assert harness.extracted is None
            assert all(lm_eval_scores[doc_id, name] == 0 for name in filters)
            continue
        string_equal = normalize_answer(harness.extracted) == normalize_answer(gold)
        assert lm_eval_scores[doc_id, rule] == float(string_equal), generation
        if doc_id in EXACT_MATCH_MISSES_EQUIVALENT_FORMS:
            assert harness.correct and not string_equal
        else:
            assert lm_eval_scores[doc_id, rule] == float(harness.correct), generation


def test_lm_eval_filters_extract_what_the_harness_extracts(fixed_run) -> None:
    filtered = {(record["doc_id"], record["filter"]): record["filtered"] for record in fixed_run["samples"]}
    for doc_id, (gold, generation, rule) in enumerate(FIXED):
        if rule is not None:
            extracted = check_answer(gold, generation).extracted
            assert normalize_answer(filtered[doc_id, rule]).replace(",", "") == normalize_answer(extracted)


def test_fixed_run_reports_task_metrics_and_lm_eval_time(fixed_run) -> None:
    metrics = fixed_run["metrics"]
    assert set(metrics) == {"fixed_exact_match", "fixed_math_verify"}
    expected = sum(check_answer(gold, text).correct for gold, text, _ in FIXED) - len(MATH_VERIFY_PREFERS_LATER_BOX)
    assert metrics["fixed_math_verify"]["math_verify,none"] == pytest.approx(expected / len(FIXED))
    assert fixed_run["patched"] == {} and fixed_run["seconds"] > 0
    print(f"lm-eval wall time, fixed outputs ({len(FIXED)} problems x 2 tasks): {fixed_run['seconds']:.2f} s")


WORDS = ["[UNK]", "[PAD]", "</s>", "Problem", "Solution", ":", "The", "final", "answer", "is", ".", "+", "="]
WORDS += [str(digit) for digit in range(10)] + ["Question"]


def _save_tiny_model(folder: Path, *, eos: bool = True, tokenizer: bool = True) -> Path:
    """A randomly initialised 2-layer GPT-2 with a word-level tokenizer, as `save_pretrained` writes it."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocabulary = {word: index for index, word in enumerate(WORDS)}
    backend = Tokenizer(models.WordLevel(vocabulary, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    special = {"unk_token": "[UNK]", "pad_token": "[PAD]"} | ({"eos_token": "</s>"} if eos else {})
    fast = PreTrainedTokenizerFast(tokenizer_object=backend, **special)
    eos_id = vocabulary["</s>"]
    config = GPT2Config(vocab_size=len(WORDS), n_positions=128, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=eos_id, eos_token_id=eos_id, pad_token_id=vocabulary["[PAD]"])
    torch.manual_seed(0)
    GPT2LMHeadModel(config).save_pretrained(folder)
    if tokenizer:
        fast.save_pretrained(folder)
    return folder


@pytest.fixture
def tiny_tasks(tmp_path: Path) -> Path:
    problems = [Problem(id=f"p{index}", question=f"{index} + {index} =", answer=str(2 * index)) for index in range(3)]
    write_task(write_jsonl(problems, tmp_path / "problems.jsonl"), tmp_path / "tasks", "tiny", max_gen_toks=8)
    return tmp_path / "tasks"


@pytest.mark.slow  # about 8 s on a quiet 16-core machine: transformers import, model build, lm-eval
def test_tiny_hf_model_runs_end_to_end(tmp_path: Path, tiny_tasks: Path) -> None:
    model_dir = _save_tiny_model(tmp_path / "model")
    run = evaluate(model_dir, tiny_tasks, ["tiny"], batch_size=4)
    assert set(run["metrics"]) == {"tiny_exact_match", "tiny_math_verify"}
    assert len(run["samples"]) == 3 * (4 + 1)  # 4 exact_match filters + the math_verify route
    assert all(isinstance(record["generation"], str) for record in run["samples"])
    print(f"lm-eval wall time, tiny hf GPT-2 (3 problems x 2 tasks): {run['seconds']:.2f} s")


def test_model_folder_without_tokenizer_files_names_them(tmp_path: Path, tiny_tasks: Path) -> None:
    model_dir = _save_tiny_model(tmp_path / "model", tokenizer=False)
    with pytest.raises(DataError, match="no tokenizer files: missing tokenizer.json") as error:
        evaluate(model_dir, tiny_tasks, ["tiny"])
    assert Path(error.value.file) == model_dir.resolve()


def test_tokenizer_without_eos_is_patched_in_a_view(tmp_path: Path, tiny_tasks: Path) -> None:
    model_dir = _save_tiny_model(tmp_path / "model", eos=False)
    prepared = prepare_model(model_dir, tmp_path)
    assert prepared.patched == {"eos_token": "</s>", "bos_token": "</s>"}
    assert prepared.path != model_dir.resolve()
    assert json.loads((prepared.path / "tokenizer_config.json").read_text())["eos_token"] == "</s>"
    assert "eos_token" not in json.loads((model_dir / "tokenizer_config.json").read_text())
    run = evaluate(model_dir, tiny_tasks, ["tiny_math_verify"], limit=1)
    assert run["patched"] == prepared.patched and len(run["samples"]) == 1


def test_unknown_task_name_lists_the_tasks_in_the_folder(tiny_tasks: Path) -> None:
    with pytest.raises(DataError, match="unknown lm-eval tasks"):
        evaluate(FixedGenerations({}), tiny_tasks, ["gsm8k"])
