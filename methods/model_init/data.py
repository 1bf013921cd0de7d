"""The datasets: `generated` (modular_lm's four-domain corpus as lines) and `byo` (your JSONL text corpus,
`byo.py`). Both name the source's recipe (its `seed` may be "run": one source per run seed, or per run seed
modulo `sources`), the student's
shape, the dev-loss threshold the steps-to-threshold metric counts to, the dev lines the learning curve is
measured on, the task types accuracy is scored on (`tasks`; default all), the dev lead over a type's majority
floor that makes it one the source learned (`gate`: only those are scored) and whether training batches (the
source's and the students') draw each line's group uniformly first (`balanced`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from harness import DataError
from methods.model_init.byo import read_corpus
from methods.model_init.models import Shape, SourceConfig
from methods.model_init.text import TextCorpus, generated_corpus
from methods.common.corpus import CorpusConfig

_SOURCE_KEYS = {"config", "num_threads", "cache_dir", "seed", "sources", "path"}
STUDENT = {"hidden": 128, "layers": 2, "heads": 4, "ffn": 512}
GATE = 0.10  # the default dev lead over a task type's majority floor that makes it the source's (scored)


@dataclass(frozen=True)
class InitSource:
    corpus: TextCorpus
    source: Mapping[str, Any]
    student: Shape
    threshold: float
    eval_lines: int
    gate: float


def _config(kind: type, values: Mapping[str, Any] | None, field: str) -> Any:
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(values or {}) - known)
    if unknown:
        raise DataError(f"unknown {field} key {unknown[0]!r}", field=f"args.{field}.{unknown[0]}",
                        hint=f"Known: {', '.join(sorted(known))}.")
    try:
        return kind(**dict(values or {}))
    except TypeError as exc:
        raise DataError(f"bad {field}: {exc}", field=f"args.{field}") from None


def _source(source: Mapping[str, Any] | None) -> dict[str, Any]:
    source = dict(source or {})
    unknown = sorted(set(source) - _SOURCE_KEYS)
    if unknown:
        raise DataError(f"unknown source argument {unknown[0]!r}", field=f"args.source.{unknown[0]}",
                        hint=f"Known: {', '.join(sorted(_SOURCE_KEYS))}.")
    if "config" in source:
        _config(SourceConfig, source["config"], "source.config")
    seed = source.get("seed", 0)
    if seed != "run" and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise DataError(f"source seed must be an integer or \"run\", got {seed!r}", field="args.source.seed",
                        hint="\"run\" trains one source per run seed.")
    sources = source.get("sources")
    if sources is not None and (seed != "run" or isinstance(sources, bool) or not isinstance(sources, int)
                                or sources < 1):
        raise DataError(f"sources must be a positive integer beside seed \"run\", got {sources!r}",
                        field="args.source.sources", hint="The run seed modulo `sources` picks the source.")
    return source


def _student(student: Mapping[str, Any] | None, source: Mapping[str, Any]) -> Shape:
    shape = _config(Shape, {**STUDENT, **dict(student or {})}, "student")
    big = SourceConfig(**dict(source.get("config") or {})).shape if "path" not in source else None
    if shape.hidden % shape.heads:
        raise DataError(f"student hidden {shape.hidden} is not divisible by its {shape.heads} heads",
                        field="args.student.heads")
    if big is not None and shape.head_dim != big.head_dim:
        raise DataError(f"student heads are {shape.head_dim} wide, the source's {big.head_dim}",
                        field="args.student.heads", hint="Keep hidden / heads equal to the source's.")
    return shape


def _scored(corpus: TextCorpus, tasks: list[str] | None) -> TextCorpus:
    if tasks is None:
        return corpus
    if not isinstance(tasks, list) or not tasks or not all(isinstance(t, str) and t for t in tasks):
        raise DataError(f"tasks must be a non-empty list of task-type names, got {tasks!r}", field="args.tasks")
    try:
        return corpus.restricted(tasks)
    except ValueError as exc:
        raise DataError(str(exc), field="args.tasks", hint="Name task types (or domains) the test lines have.") \
            from None


def _source_of(corpus: TextCorpus, source: Mapping[str, Any] | None, student: Mapping[str, Any] | None, *,
               threshold: float, eval_lines: int, tasks: list[str] | None, balanced: bool, gate: float
               ) -> InitSource:
    if isinstance(gate, bool) or not isinstance(gate, (int, float)) or not 0 <= gate < 1:
        raise DataError(f"gate must be a lead in [0, 1), got {gate!r}", field="args.gate",
                        hint="0.25 scores the task types whose dev accuracy leads their floor by 25 points.")
    if not isinstance(balanced, bool):
        raise DataError(f"balanced must be true or false, got {balanced!r}", field="args.balanced",
                        hint="true draws each training line's group (domain, task type) uniformly first.")
    corpus = replace(_scored(corpus, tasks), balanced=balanced)
    recipe = _source(source)
    if not threshold > 0:
        raise DataError(f"threshold must be a positive dev loss, got {threshold}", field="args.threshold")
    if eval_lines < 1:
        raise DataError(f"eval_lines must be positive, got {eval_lines}", field="args.eval_lines")
    return InitSource(corpus, recipe, _student(student, recipe), float(threshold), int(eval_lines), float(gate))


def generated(corpus: Mapping[str, Any] | None = None, source: Mapping[str, Any] | None = None,
              student: Mapping[str, Any] | None = None, threshold: float = 1.0, eval_lines: int = 64,
              tasks: list[str] | None = None, balanced: bool = False, gate: float = GATE) -> InitSource:
    """modular_lm's corpus (`corpus`: its CorpusConfig), the source's recipe (`source`: {config, seed,
    num_threads, cache_dir} or {path}), the student's shape ({hidden, layers, heads, ffn}), the dev-loss
    `threshold`, the `eval_lines` dev lines of the learning curve, the scored `tasks` (domains such as
    "language", or "domain/template"), `balanced` batches (each row's domain uniform) and the scoring `gate`."""
    text = generated_corpus(_config(CorpusConfig, corpus, "corpus"))
    return _source_of(text, source, student, threshold=threshold, eval_lines=eval_lines, tasks=tasks,
                      balanced=balanced, gate=gate)


def byo(path: str | Path, source: Mapping[str, Any] | None = None, student: Mapping[str, Any] | None = None,
        threshold: float = 1.0, eval_lines: int = 64, tasks: list[str] | None = None,
        balanced: bool = False, gate: float = GATE) -> InitSource:
    """Your JSONL text corpus (`byo.py`); the source is pre-trained on its train lines (`balanced`: each row's
    task type uniform)."""
    return _source_of(read_corpus(Path(path)), source, student, threshold=threshold, eval_lines=eval_lines,
                      tasks=tasks, balanced=balanced, gate=gate)
