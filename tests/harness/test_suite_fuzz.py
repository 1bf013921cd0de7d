"""Fuzzing `harness validate` and `harness plan` with mutated suite files (issue 23).

Hypothesis starts from small valid suites and mutates them at two levels: values (wrong types,
huge numbers, NaN and infinity, templates with indexing, odd paths, deep nesting, unicode,
deleted and unknown keys) and YAML text (tags, cyclic and exploding aliases, truncation,
stray characters). Whatever it writes, both commands must end with exit 0 or 3, print no
traceback, and return promptly. Derandomized, so CI sees the same variants on every run.
"""
from __future__ import annotations

import copy
import time
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import TOY_SUITE
from tests.harness.test_suite_hostile_input import LAUGHS

VARIANTS = 300
RICH_SUITE = """\
schema_version: 1
suite: toy-rich
task: toy.sign
description: every block, so mutations reach every part of the schema
defaults: {seeds: [0, 1, 2], device: cpu, timeout: 20s, threads: 1, resources: {cpus: 1, mem: 1G}}
datasets:
  easy: {loader: numbers, args: {shift: 1.0}}
  hard: {loader: numbers, args: {shift: 0.2}}
metrics: [accuracy]
methods:
  thr: {impl: threshold, params: {t: [0.0, 0.5]}, dataset_params: {hard: {noise: 0.1}}, resources: {time: 1h}}
  base: {impl: threshold, params: {t: 1.0}}
matrix: {exclude: [{method: base, dataset: hard}]}
references:
  - {method: thr, dataset: easy, metric: accuracy, value: 90.0, std: 1.0, source: "Paper, Table 1"}
claims:
  - {text: "thr beats base", check: {metric: accuracy, better: "thr[t=0.5]", than: base, dataset: easy}}
report: {rows: method, cols: dataset, metric: accuracy, cell: "{mean:.2f} ± {ci95:.2f}", measures: [wall_s]}
regression: {rules: [{metric: accuracy, max_drop: 0.5}, {metric: wall_s, max_ratio: 1.5}]}
"""
BASES = [yaml.safe_load(TOY_SUITE), yaml.safe_load(RICH_SUITE)]

HOSTILE_VALUES = st.one_of(
    st.sampled_from([
        None, True, False, 0, -1, 2**63, 2**64, 10**30, -(10**30), float("nan"), float("inf"), -float("inf"),
        1e308, "", " ", "9" * 400, "9" * 400 + "G", "1e400", "{mean[0]}", "{seed[0]}", "{mean.real}", "{}", "{",
        "{method}/{dataset}/{seed}.parquet", "/proc/self", "/dev/null", "../../../etc/passwd", "a\x00b",
        "ünïcödé ✓ 数据", "\u202e", "auto", "threshold", "accuracy", "wall_s", "20m", "-5s", ".nan", [], {},
        [[[[[[[[[[1]]]]]]]]]], {"a": {"b": {"c": {"d": {}}}}}, list(range(200)),
    ]),
    st.integers(), st.floats(), st.text(max_size=30), st.booleans(),
    st.lists(st.integers(min_value=-3, max_value=3), max_size=5),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)

TEXT_MUTATIONS = [
    "!!python/object/apply:os.system ['true']", "!foo x", "!!binary '@@@'", "!!int 'abc'",
    "!!timestamp '2020-13-45'", "&a [*a]", "[" * 3000 + "]" * 3000, "2020-13-45", "9" * 5000,
    "? [a, b]\n: 1", "*undefined", "|\n  block", '"unterminated', "\t", "\x07", "---\nsecond: doc",
]


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a mapping key or list item in a loaded suite."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, prefix + (index,))
    return found


def _set(document: Any, path: tuple, action: str, value: Any) -> None:
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "delete":
        del parent[last]
    elif action == "unknown_key" and isinstance(parent, dict):
        parent[f"{last}_typo"] = value
    else:
        parent[last] = value


@st.composite
def mutated_suites(draw: st.DrawFn) -> str:
    """A valid suite with one to three value mutations, then maybe one mutation of its YAML text."""
    document = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(document)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        _set(document, path, draw(st.sampled_from(["replace", "replace", "delete", "unknown_key"])),
             copy.deepcopy(draw(HOSTILE_VALUES)))  # a copy: later mutations must not edit the sampled constants
    text = yaml.safe_dump(document, allow_unicode=draw(st.booleans()), sort_keys=False)
    lines = text.splitlines(keepends=True)
    where = draw(st.integers(min_value=0, max_value=len(lines)))
    kind = draw(st.sampled_from(["none", "value", "line", "truncate", "laughs"]))
    if kind == "value":  # replace the value after a key's colon with hostile YAML
        line = lines[min(where, len(lines) - 1)]
        key, colon, _ = line.partition(": ")
        if colon:
            lines[min(where, len(lines) - 1)] = f"{key}: {draw(st.sampled_from(TEXT_MUTATIONS))}\n"
    elif kind == "line":
        lines.insert(where, draw(st.sampled_from(TEXT_MUTATIONS)) + "\n")
    elif kind == "truncate":
        return text[:draw(st.integers(min_value=0, max_value=len(text)))]
    elif kind == "laughs":
        lines.append(LAUGHS)
    return "".join(lines)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_mutated_suites_give_exit_0_or_3_and_never_a_traceback(cli, tmp_path):
    path = tmp_path / "suite.yaml"
    store = str(tmp_path / "absent.sqlite")
    outcomes: dict[int, int] = {}

    @settings(max_examples=VARIANTS, derandomize=True, database=None, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])
    @given(mutated_suites())
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8")
        for args in (("validate", str(path)), ("plan", str(path), "--store", store)):
            started = time.monotonic()
            code, out, err = cli(*args)
            assert code in (0, 3), (args[0], code, text, err)
            assert "Traceback" not in out + err, (args[0], text, err)
            assert time.monotonic() - started < 10, (args[0], "took over 10 s", text)
            outcomes[code] = outcomes.get(code, 0) + 1

    check()
    ran = sum(outcomes.values()) // 2
    print(f"{ran} mutated suites: {outcomes.get(0, 0)} commands exit 0, {outcomes.get(3, 0)} exit 3")
    assert ran >= VARIANTS and outcomes.get(3) and outcomes.get(0)
