"""What the task hands a method (`ModularInputs`), what it keeps for scoring (`Truth`) and what a method returns
(`Answer`): below the task and the loaders, which both build them."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import DataError
from harness.model_cache import model_folder
from methods.common.corpus import CorpusConfig, Example


@dataclass(frozen=True)
class Answer:
    """One generated answer: its condition, question id, text and (full condition) routing counts."""

    condition: str
    id: str
    generation: str
    routing: tuple[tuple[int, ...], ...] | None = None  # per layer, the prompt's tokens per expert


@dataclass(frozen=True)
class Truth:
    domain: str
    ood: bool
    target: str
    reasoning: str = ""  # a held-out multi-step item's kind (`reasoning.KINDS`); empty for the corpus's questions


@dataclass(frozen=True)
class ModularInputs:
    """The test questions (answers blanked), the corpus and the base model's recipe (None for a user's questions)."""

    examples: tuple[Example, ...]
    corpus: CorpusConfig
    model: Mapping[str, Any] | None = None

    def require_model(self, who: str) -> None:
        if self.model is None:
            raise DataError(f"{who} trains on the generated corpus; the byo dataset holds only your questions",
                            field="datasets", hint="Run it on the 'generated' dataset; score your generations on "
                                                   "'byo' with a `predictions:` method.")

    def base_dir(self, seed: int) -> Path:
        """The seed's dense base (trained on first use), or the recipe's own seed or path when it names one."""
        from methods.common.tiny_llama import BaseConfig, prepare

        options = dict(self.model or {})
        if "path" not in options:
            options.setdefault("seed", seed)
        return model_folder(options, prepare, BaseConfig)
