"""MeZO's prompt templates for SST-2, RTE, CB and BoolQ, and the loader for those datasets' JSONL files.

Classification is scored the MeZO way (`--train_as_classification`): the model reads the prompt and each
option word is scored by its log-likelihood as the continuation; the templates and verbalizers are MeZO's
(`large_models/templates.py`), which QZO reuses. The loader reads the GLUE/SuperGLUE field names
(`sentence`/`label` for SST-2, `premise`/`hypothesis`/`label` for RTE and CB, `passage`/`question`/`label`
for BoolQ), so a user's copy of the real datasets runs through the same task.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from harness import DataError


@dataclass(frozen=True)
class PromptExample:
    """One classification example: the prompt, the option words, and the index of the right one."""

    prompt: str
    options: tuple[str, ...]
    label: int


@dataclass(frozen=True)
class Template:
    fields: tuple[str, ...]
    render: Callable[[Mapping[str, str]], str]
    options: tuple[str, ...]
    labels: Mapping[object, int]  # a JSONL label value -> index into `options`

    def example(self, record: Mapping[str, object], label: object) -> PromptExample:
        return PromptExample(self.render({k: str(record[k]).strip() for k in self.fields}), self.options,
                             self.labels[label])


TEMPLATES: dict[str, Template] = {
    "sst2": Template(("sentence",), lambda r: f"{r['sentence']} It was", ("terrible", "great"),
                     {0: 0, 1: 1, "negative": 0, "positive": 1}),
    "rte": Template(("premise", "hypothesis"),
                    lambda r: f"{r['premise']}\nDoes this mean that \"{r['hypothesis']}\" is true? Yes or No?\n",
                    ("Yes", "No"), {0: 0, 1: 1, "entailment": 0, "not_entailment": 1}),
    "cb": Template(("premise", "hypothesis"),
                   lambda r: f"Suppose {r['premise']} Can we infer that \"{r['hypothesis']}\"? Yes, No, or Maybe?\n",
                   ("Yes", "No", "Maybe"), {0: 0, 1: 1, 2: 2, "entailment": 0, "contradiction": 1, "neutral": 2}),
    # False == 0 and True == 1 as dict keys, so labels written 0/1 find the same entries as false/true
    "boolq": Template(("passage", "question"), lambda r: f"{r['passage']} {r['question']}?", ("No", "Yes"),
                      {False: 0, True: 1, "false": 0, "true": 1}),
}


def template(task: str) -> Template:
    if task not in TEMPLATES:
        raise ValueError(f"unknown prompt task {task!r}; known: {', '.join(TEMPLATES)}")
    return TEMPLATES[task]


def load_jsonl(path: str | Path, task: str) -> list[PromptExample]:
    """The examples of a GLUE/SuperGLUE-format JSONL file; `DataError` names the line and field at fault."""
    spec = template(task)
    path = Path(path)
    if not path.is_file():
        raise DataError(f"no such file; give the path of a {task} JSONL file", file=str(path))
    examples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataError(f"not valid JSON ({error.msg})", file=str(path), line=number) from None
        if not isinstance(record, dict):
            raise DataError("each line must be a JSON object", file=str(path), line=number)
        missing = [f for f in (*spec.fields, "label") if f not in record]
        if missing:
            raise DataError(f"missing field {missing[0]!r}; a {task} line has {[*spec.fields, 'label']}",
                            file=str(path), line=number)
        label = record["label"].lower() if isinstance(record["label"], str) else record["label"]
        if label not in spec.labels:
            raise DataError(f"label {record['label']!r} is not one of {sorted(map(str, spec.labels))}",
                            file=str(path), line=number)
        examples.append(spec.example(record, label))
    if not examples:
        raise DataError("the file has no examples", file=str(path))
    return examples
