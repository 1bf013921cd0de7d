"""A user's own model folder on the family's reasoning items through lm-eval: the exported tasks and the committed
example suite run end to end, offline, on a tiny random Hugging Face Llama written into tmp_path, and the stored
exact match equals a hand computation from the model's recorded generations."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.extras import require_extra

require_extra("lm-eval-tasks")

import harness  # noqa: E402 (after the skip: the extra's packages)
from harness.store import Store  # noqa: E402
from methods.modular_lm.lm_eval_export import ANSWER_WORDS, BBH, GSM8K, export_tasks  # noqa: E402
from methods.modular_lm.reasoning import reasoning_items  # noqa: E402

EXAMPLE = Path(__file__).parents[2] / "methods" / "modular_lm" / "examples" / "lm_eval.yaml"
LIMIT = 12  # documents per kind

MINE = """\
extends: {example}
suite: my_model_reasoning
defaults: {{device: cpu, threads: 1}}
datasets:
{limits}
methods:
  yours: {{params: {{model: {{path: {model}}}, dtype: float32, generation: {{max_gen_toks: 6}}}}}}
"""


def _tiny_llama(folder: Path) -> Path:
    """A random LlamaForCausalLM (about 6,000 parameters) whose word-level tokenizer knows the items' words."""
    import torch
    from tokenizers import pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM

    from methods.common.hf_tiny_lm import SPECIAL_TOKENS, tokenizer_fields, word_level_tokenizer

    words = sorted({w for _, e in reasoning_items(LIMIT) for w in f"{e.question} {e.answer}".split()})
    tokenizer = word_level_tokenizer(words, pre_tokenizers.WhitespaceSplit())
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                         num_key_value_heads=2, max_position_embeddings=128,
                         **tokenizer_fields(tokenizer) | {"tie_word_embeddings": False})
    model = LlamaForCausalLM(config)
    with torch.no_grad():  # the special tokens' logits 0, below the best word's: it writes words, not an empty answer
        model.lm_head.weight[: len(SPECIAL_TOKENS)] = 0.0
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _normalise(text: str, ignore: list[str]) -> str:
    """lm-eval's exact_match normalisation as the task's YAML states it: the ignored regexes removed, case folded."""
    for pattern in ignore:
        text = re.sub(pattern, "", text)
    return text.lower()


def _extract(task: str, generation: str) -> str:
    """The final answer the `flexible-extract` filter should keep: the last number (arithmetic), else the first of
    the kind's answer words, else lm-eval's fallback."""
    kind = task.removeprefix("micro_reason_")
    if kind == "arithmetic":
        numbers = re.findall(r"-?[$0-9.,]{2,}|-?[0-9]+", generation)
        return numbers[-1] if numbers else "[invalid]"
    found = re.search(r"\b(" + "|".join(ANSWER_WORDS[kind]) + r")\b", generation, re.IGNORECASE)
    return found.group(1) if found else "[invalid]"


def _hand_exact_match(table: pd.DataFrame) -> float:
    rows = table[(table["metric"] == "exact_match") & (table["filter"] == "flexible-extract")]
    hits = []
    for row in rows.itertuples():
        ((generation,),) = json.loads(row.response)  # one request per document, one greedy generation
        task = str(row.task)
        ignore = (GSM8K if task.endswith("arithmetic") else BBH)["metric_list"][0]["regexes_to_ignore"]
        hits.append(_normalise(_extract(task, generation), ignore) == _normalise(str(row.target), ignore))
    assert len(hits) == LIMIT
    return sum(hits) / len(hits)


@pytest.mark.slow  # about 20 s, most of it importing lm-eval and transformers
def test_a_users_model_folder_runs_the_example_suite_and_scores_exact_match_by_hand(tmp_path, monkeypatch):
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("HARNESS_LM_EVAL_INDEX", str(tmp_path / "index"))
    data_root = tmp_path / "data"
    tasks = export_tasks(data_root / "micro_reasoning", per_kind=LIMIT)
    model = _tiny_llama(tmp_path / "my-model")
    kinds = [t.removeprefix("micro_reason_") for t in tasks]
    limits = "\n".join(f"  {k}: {{args: {{limit: {LIMIT}}}}}" for k in kinds)
    suite = tmp_path / "mine.yaml"
    suite.write_text(MINE.format(example=EXAMPLE, limits=limits, model=model))

    store = tmp_path / "results.sqlite"
    harness.run(suite, store=store, executor="inline", data_root=data_root)

    with Store(store) as db:
        records = {r["dataset"]: r for r in db.records()}
    assert sorted(records) == sorted(kinds)
    scores = {}
    for kind, record in records.items():
        assert record["status"] == "ok", record.get("error")
        table = pd.read_parquet(store.parent / record["predictions"])
        scores[kind] = record["metrics"]["exact_match"]
        assert scores[kind] == pytest.approx(_hand_exact_match(table), abs=1e-12)
        figure = record["measurements"][f"micro_reason_{kind}/exact_match,flexible-extract"]["value"]
        assert figure == pytest.approx(scores[kind], abs=1e-12)  # lm-eval's own reported value
        assert f"micro_reason_{kind}/exact_match,strict-match" in record["measurements"]
    assert 0 < max(scores.values()) < 1  # the random model answers some items right: the hand check is not 0 = 0
