"""Evaluation through lm-evaluation-harness 0.4.13 on local files only: an independent check of our scorer.

lm-eval scores with its own machinery, never with `answers.py`: regex filters and its `exact_match`
metric (configured as in its gsm8k.yaml), and math-verify called as its minerva_math task calls it.
In lm-eval a task's `process_results` replaces the metric functions of `metric_list`, so the two
routes cannot share a task: `write_task` writes two variants, tied together by one tag.
"""
from __future__ import annotations

import json
import numbers
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import DataError
from methods.common.hf_models import offline, prepare_model

if TYPE_CHECKING:
    from lm_eval.api.model import LM

MINERVA_PROMPT = "Problem:\n{{question}}\n\nSolution:"
METRIC_MODULE = "math_verify_metric"

# One filter per rule of `answers.extract_answer`, written independently as lm-eval regexes; the last
# match wins, as in our extractor. `flexible-extract` is GSM8K's own last-number regex.
ANSWER_FILTERS: dict[str, str] = {
    "final-answer": r"(?i)final answer is:?\s*\$?(.+?)\$?(?:\.\s*I hope it is correct|\.?\s*$|\.\s|\n)",
    "boxed": r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}",
    "answer-is": r"(?i)the answer is:?\s*\$?(.+?)\$?(?:\.\s|\.?\s*$|\n)",
    "flexible-extract": r"(-?[$0-9.,]{2,})|(-?[0-9]+)",
}
# gsm8k.yaml's normalisation without its "#### " rule (our gold is the bare answer), plus whitespace.
EXACT_MATCH_IGNORE = (",", r"\$", r"\s", r"\.$")

# Written next to the YAML as `math_verify_metric.py`. lm-eval's minerva_math/utils.py asserts antlr4
# 4.11 at import, so its process_results is mirrored rather than imported: verify(parse(gold),
# parse(generation)) on the whole generation. Minerva's gold is a solution with \boxed{}; ours is the
# bare answer, so it is put in '$' for math-verify's LaTeX extraction.
METRIC_SOURCE = '''"""math_verify metric for lm-eval, as lm_eval/tasks/minerva_math/utils.py computes it."""
from math_verify import parse, verify


def process_results(doc, results):
    gold = parse("$" + doc["answer"] + "$")
    return {"math_verify": 1 if verify(gold=gold, target=parse(results[0])) else 0}
'''


@dataclass(frozen=True)
class TaskFiles:
    """The written task: `tag` runs both variants; `exact_match_task` and `math_verify_task` name them."""

    tag: str
    exact_match_task: str
    math_verify_task: str
    yamls: tuple[Path, Path]


def _yaml(value: Any) -> str:
    """JSON is valid YAML, and json.dumps quotes every backslash and newline correctly."""
    return json.dumps(value, ensure_ascii=False)


def _common_yaml(problems_jsonl: Path, name: str, task: str, prompt: str,
                 max_gen_toks: int, until: Sequence[str]) -> list[str]:
    return [
        f"tag: [{_yaml(name)}]",
        f"task: {_yaml(task)}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {_yaml(str(problems_jsonl))}",
        "test_split: test",
        "output_type: generate_until",
        f"doc_to_text: {_yaml(prompt)}",
        "doc_to_target: answer",
        "num_fewshot: 0",
        "generation_kwargs:",
        f"  until: {_yaml(list(until))}",
        "  do_sample: false",
        "  temperature: 0.0",
        f"  max_gen_toks: {int(max_gen_toks)}",
        "metadata:",
        "  version: 1.0",
    ]


def write_task(problems_jsonl: Path, folder: Path, name: str, *, prompt: str = MINERVA_PROMPT,
               max_gen_toks: int = 512, until: Sequence[str] = ("Problem:",)) -> TaskFiles:
    """Write the lm-eval tasks `<name>_exact_match` and `<name>_math_verify` over a local problem JSONL.

    Zero-shot and greedy. The JSONL is the harness's own format (`problems.write_jsonl`); its path
    is stored absolute because lm-eval resolves `data_files` against its working directory.
    """
    problems_jsonl = Path(problems_jsonl).resolve()
    if not problems_jsonl.is_file():
        raise DataError("problem file not found", file=problems_jsonl, hint="Write it with problems.write_jsonl.")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    exact, verified = f"{name}_exact_match", f"{name}_math_verify"
    exact_lines = _common_yaml(problems_jsonl, name, exact, prompt, max_gen_toks, until) + [
        "metric_list:",
        "  - metric: exact_match",
        "    aggregation: mean",
        "    higher_is_better: true",
        "    ignore_case: true",
        "    ignore_punctuation: false",
        f"    regexes_to_ignore: {_yaml(list(EXACT_MATCH_IGNORE))}",
        "filter_list:",
    ]
    for filter_name, pattern in ANSWER_FILTERS.items():
        exact_lines += [
            f"  - name: {_yaml(filter_name)}",
            "    filter:",
            "      - function: regex",
            f"        regex_pattern: {_yaml(pattern)}",
            "        group_select: -1",
            "      - function: take_first",
        ]
    verify_lines = _common_yaml(problems_jsonl, name, verified, prompt, max_gen_toks, until) + [
        f"process_results: !function {METRIC_MODULE}.process_results",
        "metric_list:",
        "  - metric: math_verify",
        "    aggregation: mean",
        "    higher_is_better: true",
    ]
    (folder / f"{METRIC_MODULE}.py").write_text(METRIC_SOURCE, encoding="utf-8")
    paths = (folder / f"{exact}.yaml", folder / f"{verified}.yaml")
    for path, lines in zip(paths, (exact_lines, verify_lines), strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return TaskFiles(tag=name, exact_match_task=exact, math_verify_task=verified, yamls=paths)


def _sample_records(samples: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One record per (task, document, filter): the generation, the filtered answer and each metric."""
    records = []
    for task, examples in samples.items():
        for example in examples:
            records.append({
                "task": task,
                "doc_id": example["doc_id"],
                "filter": example["filter"],
                "generation": example["resps"][0][0],
                "filtered": example["filtered_resps"][0],
                "metrics": {metric: float(example[metric]) for metric in example["metrics"]},
            })
    return records


def evaluate(model: Path | LM, task_folder: Path, task_names: list[str], *, batch_size: int = 16,
             limit: int | None = None, device: str = "cpu") -> dict[str, Any]:
    """Run lm-eval's `simple_evaluate` on local tasks only (its built-in task index is not loaded).

    `model` is a local Hugging Face folder (loaded with lm-eval's `hf` backend in float32) or an
    `lm_eval.api.model.LM` instance. Returns `metrics` per task, `samples` (see `_sample_records`),
    the tokenizer tokens `patched`, and lm-eval's wall time in `seconds`.
    """
    task_folder = Path(task_folder)
    if not task_folder.is_dir():
        raise DataError("task folder not found", file=task_folder, hint="Write the tasks with write_task.")
    scratch = Path(tempfile.mkdtemp(prefix="lm-eval-"))
    try:
        with offline():
            from lm_eval import simple_evaluate
            from lm_eval.tasks import TaskManager

            manager = TaskManager(include_path=str(task_folder.resolve()), include_defaults=False)
            unknown = [name for name in task_names if name not in manager.all_tasks]
            if unknown:
                raise DataError(f"unknown lm-eval tasks {unknown}", file=task_folder,
                                hint=f"The folder defines {sorted(manager.all_tasks)}.")
            patched: dict[str, str] = {}
            if isinstance(model, (str, Path)):
                prepared = prepare_model(Path(model), scratch)
                patched = prepared.patched
                arguments: dict[str, Any] = {"model": "hf", "device": device, "batch_size": batch_size,
                                             "model_args": f"pretrained={prepared.path},dtype=float32"}
            else:
                arguments = {"model": model}
            start = time.perf_counter()
            output = simple_evaluate(tasks=list(task_names), task_manager=manager, limit=limit,
                                     log_samples=True, **arguments)
            seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # lm-eval keys its metrics "<metric>,<filter>"; the other entries (alias, sample_len) are bookkeeping.
    # A stderr it cannot compute (one sample) is the string "N/A": None here.
    metrics = {task: {key: float(value) if isinstance(value, numbers.Real) else None
                      for key, value in values.items() if "," in key}
               for task, values in output["results"].items()}
    return {"metrics": metrics, "samples": _sample_records(output["samples"]),
            "patched": patched, "seconds": seconds}
