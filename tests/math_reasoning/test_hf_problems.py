"""hf_problems: MATH- and GSM8K-style problems from local Hugging Face data through field mapping, the same
problems as the JSONL loaders, row-numbered errors, and a suite over it that validates and runs."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("datasets", reason="hf_problems reads through the datasets library")
pytest.importorskip("math_verify", reason="the harness scorer needs math-verify")

import methods.math_reasoning  # noqa: E402,F401  (registers the family)
from harness.cli import main  # noqa: E402
from harness.errors import DataError  # noqa: E402
from harness.store import Store  # noqa: E402
from methods.math_reasoning.evaluation import hf_problems, math_jsonl  # noqa: E402
from tests.hf_cache import cache_hub_dataset  # noqa: E402

MATH_ROWS = [
    {"problem": "What is $1+1$?", "solution": "It is $\\boxed{2}$.", "level": "Level 1", "type": "Algebra"},
    {"problem": "Half of 1?", "solution": "So \\boxed{\\frac{1}{2}}.", "level": "Level 2", "type": "Prealgebra"},
]
GSM8K = pd.DataFrame({"query": ["Tom has 3 apples and buys 4. How many?", "How many cents in $12?"],
                      "worked": ["3 + 4 = 7\n#### 7", "12 * 100 = 1200\n#### 1,200"]})


def _math_file(path: Path, rows: list[dict] = MATH_ROWS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_math_table_gives_the_problems_the_jsonl_loader_gives(tmp_path):
    jsonl = _math_file(tmp_path / "math.jsonl")
    parquet = tmp_path / "parquet" / "math.parquet"
    parquet.parent.mkdir()
    pd.DataFrame(MATH_ROWS).rename(columns={"problem": "question"}).to_parquet(parquet)
    from_table = hf_problems("parquet", str(parquet), fields={"problem": "question"})
    from_jsonl = math_jsonl(str(jsonl))
    assert from_table.problems == from_jsonl.problems
    assert [p.answer for p in from_table.problems] == ["2", "\\frac{1}{2}"] and from_table.file == str(parquet)
    assert hf_problems("jsonl", str(jsonl)).problems == from_jsonl.problems


def test_gsm8k_rows_from_the_hub_cache_through_field_mapping(tmp_path):
    cache_hub_dataset(tmp_path / "cache", "someone/gsm_toy", "main", {"test": GSM8K})
    problems = hf_problems("hub", style="gsm8k", repo="someone/gsm_toy", split="test",
                           cache_dir=str(tmp_path / "cache"), fields={"question": "query", "answer": "worked"})
    assert [(p.answer, p.solution, p.source) for p in problems.problems] == [
        ("7", "3 + 4 = 7", "GSM8K"), ("1200", "12 * 100 = 1200", "GSM8K")]
    assert problems.name == "someone/gsm_toy"


def test_a_bad_row_is_named_by_file_row_and_field_and_skip_counts_it(tmp_path):
    path = tmp_path / "gsm.csv"
    GSM8K.assign(worked=["3 + 4 = 7\n#### 7", "no final answer"]).to_csv(path, index=False)
    mapping = {"question": "query", "answer": "worked"}
    with pytest.raises(DataError, match=r"gsm.csv: answer: row 2: the answer has no '#### <number>'"):
        hf_problems("csv", str(path), style="gsm8k", fields=mapping)
    skipping = hf_problems("csv", str(path), style="gsm8k", fields=mapping, on_error="skip")
    assert [p.answer for p in skipping.problems] == ["7"] and [s.line for s in skipping.skipped] == [2]


def test_an_unknown_style_names_the_styles(tmp_path):
    with pytest.raises(DataError, match="style must be one of \\['gsm8k', 'math'\\]"):
        hf_problems("jsonl", str(_math_file(tmp_path / "math.jsonl")), style="aime")


def _suite(tmp_path: Path, fields: str, model: Path) -> Path:
    suite = tmp_path / "hf_math.yaml"
    suite.write_text(textwrap.dedent(f"""\
        schema_version: 1
        suite: hf_math
        task: math_reasoning.evaluation
        defaults: {{seeds: [0], device: cpu, threads: 1}}
        datasets:
          math_test:
            loader: hf_problems
            args: {{format: parquet, path: math/test.parquet, split: test, fields: {fields}}}
        metrics: [accuracy, unparsed]
        methods:
          tiny: {{impl: model_eval, params: {{model: {{path: {json.dumps(str(model))}}}, max_new_tokens: 4}}}}
        """))
    return suite


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from methods.math_reasoning.tiny_model import StudentConfig, build_model, build_tokenizer

    torch.manual_seed(0)
    tokenizer = build_tokenizer()
    folder = tmp_path_factory.mktemp("tiny-model")
    build_model(StudentConfig(hidden_size=32, num_layers=1, num_heads=2), tokenizer).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.slow  # a worker process imports torch and decodes 2 problems: a few seconds on 2 busy cores
def test_a_suite_over_a_tiny_math_parquet_validates_and_runs(tmp_path, tiny_model, capsys):
    data = tmp_path / "data"
    (data / "math").mkdir(parents=True)
    pd.DataFrame(MATH_ROWS).rename(columns={"problem": "question"}).to_parquet(data / "math" / "test.parquet")
    suite = _suite(tmp_path, "{problem: question}", tiny_model)
    store = tmp_path / "results.sqlite"
    assert main(["validate", str(suite)]) == 0
    assert main(["run", str(suite), "--store", str(store), "--data-root", str(data)]) == 0, capsys.readouterr()
    [record] = Store(store).records()
    assert record["status"] == "ok" and set(record["metrics"]) == {"accuracy", "unparsed"}


def test_a_suite_naming_a_missing_column_is_a_user_error(tmp_path, capsys):
    data = tmp_path / "data"
    (data / "math").mkdir(parents=True)
    pd.DataFrame(MATH_ROWS).to_parquet(data / "math" / "test.parquet")
    suite = _suite(tmp_path, "{problem: question}", tmp_path / "unused-model")
    assert main(["run", str(suite), "--store", str(tmp_path / "results.sqlite"), "--data-root", str(data)]) == 3
    err = capsys.readouterr().err
    assert "no column 'question' for the field 'problem'" in err and "The columns are: problem, solution" in err
