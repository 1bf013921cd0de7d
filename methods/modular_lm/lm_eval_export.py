"""The held-out multi-step reasoning items (`reasoning.py`) as lm-eval task YAMLs + JSONL, so a user's own
pretrained model folder is evaluated on them by lm-eval itself (the `lm_eval_tasks` family's `lm_eval_task` loader
with `path:`; `examples/lm_eval.yaml`). Families never import each other: this writes files, nothing more.

The layouts are lm-eval's own for the benchmarks each kind stands in for: `arithmetic` as GSM8K (documents
`question`/`answer` with the answer as `#### N`, prompt `Question: ...\\nAnswer:`, gsm8k's exact-match settings and
its `strict-match` and `flexible-extract` filters), `deduction`, `social` and `language` as BBH zero-shot (documents
`input`/`target`, prompt `Q: ...\\nA:`, BBH's exact-match settings, `strict-match` = the whole generation and
`flexible-extract` = the first answer word it names, as BBH's yes/no tasks extract theirs). Greedy generation,
zero-shot: the items have no training split. The JSONL files are named by absolute path in the YAMLs (lm-eval
reads a YAML's `data_files` from the working directory), so export again after moving the folder.

    python -m methods.modular_lm.lm_eval_export DATA_ROOT/micro_reasoning [--per-kind 100] [--seed 0]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml

from methods.common.corpus import PLACES
from methods.modular_lm.reasoning import KINDS, reasoning_items

PREFIX = "micro_reason_"  # task names: micro_reason_arithmetic, micro_reason_deduction, ...
VERSION = 1.0  # lm-eval reports it; bump it when the layout or the items change

# lm-eval 0.4's gsm8k.yaml: its metric, stop sequences and filters.
GSM8K = {
    "doc_to_text": "Question: {{question}}\nAnswer:",
    "doc_to_target": "{{answer}}",
    "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True, "ignore_case": True,
                     "ignore_punctuation": False, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}],
    "generation_kwargs": {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False, "temperature": 0.0},
    "filter_list": [
        {"name": "strict-match", "filter": [{"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"},
                                            {"function": "take_first"}]},
        {"name": "flexible-extract", "filter": [{"function": "regex", "group_select": -1,
                                                 "regex_pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)"},
                                                {"function": "take_first"}]}],
}

# lm-eval 0.4's bbh/zeroshot/_zeroshot_template_yaml: its metric and stop sequences.
BBH = {
    "doc_to_text": "Q: {{input}}\nA:",
    "doc_to_target": "{{target}}",
    "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True, "ignore_case": True,
                     "regexes_to_ignore": ["\\.$", ",", "\n", "\\\\", '"']}],
    "generation_kwargs": {"until": ["</s>", "Q:", "<|im_end|>"], "do_sample": False, "temperature": 0.0},
}

# The answer words BBH-style `flexible-extract` looks for (the first one named), per kind.
ANSWER_WORDS = {"deduction": ("yes", "no"), "social": PLACES, "language": ("yes", "no")}


def answer_pattern(kind: str) -> str:
    """The `flexible-extract` regex of a BBH-style kind: any of its answer words, case-insensitive."""
    return "(?i)\\b(" + "|".join(ANSWER_WORDS[kind]) + ")\\b"


def task_config(kind: str, data_file: Path) -> dict[str, Any]:
    """The lm-eval task YAML of one kind, reading its documents from `data_file`."""
    config: dict[str, Any] = {"task": PREFIX + kind, "dataset_path": "json",
                              "dataset_kwargs": {"data_files": {"test": str(data_file)}},
                              "test_split": "test", "output_type": "generate_until", "num_fewshot": 0}
    if kind == "arithmetic":
        config |= GSM8K
    else:
        config |= BBH | {"filter_list": [
            {"name": "strict-match", "filter": [{"function": "take_first"}]},
            {"name": "flexible-extract", "filter": [{"function": "regex", "regex_pattern": answer_pattern(kind)},
                                                    {"function": "take_first"}]}]}
    config["metadata"] = {"version": VERSION, "stands_in_for": KINDS[kind][1]}
    return config


def document(kind: str, item_id: str, question: str, answer: str) -> dict[str, str]:
    """One JSONL document: GSM8K's fields for arithmetic, BBH's for the rest (and the family's id)."""
    if kind == "arithmetic":
        return {"id": item_id, "question": question, "answer": f"#### {answer}"}
    return {"id": item_id, "input": question, "target": answer}


def export_tasks(folder: Path, per_kind: int = 100, seed: int = 0) -> list[str]:
    """Write one task YAML and one JSONL per kind into `folder` (made if absent); the task names, in KINDS order."""
    folder = folder.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    documents: dict[str, list[dict[str, str]]] = {kind: [] for kind in KINDS}
    for kind, example in reasoning_items(per_kind, seed):
        documents[kind].append(document(kind, example.id, example.question, example.answer))
    for kind, rows in documents.items():
        data_file = folder / f"{PREFIX}{kind}.jsonl"
        data_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
        (folder / f"{PREFIX}{kind}.yaml").write_text(yaml.safe_dump(task_config(kind, data_file), sort_keys=False))
    return [PREFIX + kind for kind in KINDS]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("folder", type=Path, help="where to write the YAMLs and JSONL (e.g. under the data root)")
    parser.add_argument("--per-kind", type=int, default=100, help="items per kind (the main suites' 100)")
    parser.add_argument("--seed", type=int, default=0, help="the items' generator seed (the main suites' 0)")
    args = parser.parse_args(argv)
    if args.per_kind < 1:
        parser.error("--per-kind must be at least 1")
    try:
        names = export_tasks(args.folder, args.per_kind, args.seed)
    except OSError as error:  # an unwritable or non-folder path is the user's to fix, not a traceback
        parser.exit(3, f"error: cannot write the tasks to {args.folder}: {error.strerror or error}. "
                       "Give a folder you can write to.\n")
    print(f"wrote {', '.join(names)} to {args.folder.expanduser().resolve()}")


if __name__ == "__main__":
    main()
