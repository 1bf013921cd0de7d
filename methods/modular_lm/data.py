"""The datasets: `generated` (the four-domain corpus of `corpus.py` and the recipe of the dense base each seed
pre-trains) and `byo` (a user's GSM8K/BBH-style questions, `byo.py`, whose generations are a predictions file)."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness import DataError
from methods.modular_lm.byo import Question, read_questions
from methods.common.corpus import CorpusConfig, Example, build_corpus
from methods.modular_lm.inputs import ModularInputs, Truth
from methods.modular_lm.reasoning import reasoning_items

_MODEL_KEYS = {"config", "num_threads", "cache_dir", "seed", "path"}


@dataclass(frozen=True)
class GeneratedSource:
    corpus: CorpusConfig
    model: Mapping[str, Any]
    reasoning: int = 0  # held-out multi-step items per kind (`reasoning.py`) answered beside the test split
    split: str = "test"  # or "dev": the validation split, for choosing inferred parameters (micro_tune)

    def _questions(self) -> list[tuple[str, Example]]:
        return [("", e) for e in build_corpus(self.corpus).split(self.split)] + reasoning_items(self.reasoning)

    def inputs(self) -> ModularInputs:
        examples = tuple(replace(e, answer="") for _, e in self._questions())
        return ModularInputs(examples, self.corpus, self.model)

    def truth(self) -> dict[str, Truth]:
        return {e.id: Truth(e.domain, e.ood, e.answer, kind) for kind, e in self._questions()}


@dataclass(frozen=True)
class ByoSource:
    rows: tuple[Question, ...]

    def inputs(self) -> ModularInputs:
        examples = tuple(Example(r.id, r.domain, "byo", r.question, "") for r in self.rows)
        return ModularInputs(examples, CorpusConfig(), None)

    def truth(self) -> dict[str, Truth]:
        return {r.id: Truth(r.domain, False, r.target) for r in self.rows}


def _corpus_of(model: Mapping[str, Any]) -> CorpusConfig:
    if "path" in model:
        record = Path(str(model["path"])).expanduser() / "training.json"
        corpus = json.loads(record.read_text()).get("config", {}).get("corpus") if record.is_file() else None
        return CorpusConfig(**corpus) if corpus else CorpusConfig()
    corpus = dict(model.get("config") or {}).get("corpus") or {}
    try:
        return CorpusConfig(**corpus)
    except TypeError as exc:
        raise DataError(f"bad corpus config: {exc}", field="args.model.config.corpus") from None


def generated(model: Mapping[str, Any] | None = None, reasoning: int = 0, split: str = "test") -> GeneratedSource:
    """The generated corpus's test split (in-distribution and held-out templates, the same for every seed);
    `model`: the dense base's recipe ({config, num_threads, cache_dir}; its `config.corpus` sets the corpus),
    pre-trained per run seed on first use, or {path: DIR} of a base saved by this family; `reasoning`: held-out
    multi-step items per kind (arithmetic, deduction, social, language; `reasoning.py`) answered beside them;
    `split`: `test`, or `dev` (the validation split: choose inferred parameters there, never on the test split)."""
    if split not in ("test", "dev"):
        raise DataError(f"unknown split {split!r}", field="args.split", hint="test or dev")
    if not isinstance(reasoning, int) or isinstance(reasoning, bool) or reasoning < 0:
        raise DataError(f"reasoning must be a count of items per kind (an integer >= 0), got {reasoning!r}",
                        field="args.reasoning", hint="e.g. reasoning: 100")
    model = dict(model or {})
    unknown = sorted(set(model) - _MODEL_KEYS)
    if unknown:
        raise DataError(f"unknown model argument {unknown[0]!r}", field=f"args.model.{unknown[0]}",
                        hint=f"Known: {', '.join(sorted(_MODEL_KEYS))}.")
    return GeneratedSource(_corpus_of(model), model, reasoning, split)


def byo(path: str | Path) -> ByoSource:
    """Your GSM8K/BBH-style questions from a JSONL (`byo.py`); your model's generations on them are a predictions
    file, scored like the corpus."""
    return ByoSource(tuple(read_questions(Path(path))))
