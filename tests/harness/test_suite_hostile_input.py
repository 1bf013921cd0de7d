"""Hostile or careless suite files (issue 23): each is exit 3 naming the file and line, never a traceback or a hang."""
from __future__ import annotations

import time
from itertools import pairwise

import pytest

from tests.conftest import TOY_SUITE

LAUGHS = "".join([  # 342 bytes that YAML would expand to 9^9 strings
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n',
    *(f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in pairwise("abcdefghi")),
])


def _suite(old: str = "", new: str = "", extra: str = "") -> str:
    assert old in TOY_SUITE
    return TOY_SUITE.replace(old, new) + extra


def _refused(cli, write_suite, text: str, message: str, line: int, command: str = "validate") -> str:
    path = write_suite(text)
    args = (command, str(path)) + (("--store", str(path.parent / "s.sqlite")) if command == "plan" else ())
    code, _, err = cli(*args)
    assert code == 3, err
    assert f"{path}:{line}:" in err and message in err, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(("value", "shown"), [
    ("!!python/object/apply:os.system ['echo pwned']", "!!python/object/apply:os.system"),
    ("!foo toy", "!foo"),
    ("!!binary '@@ not base64 @@'", "!!binary"),
    ("!!int 'abc'", "!!int"),
    ("!!timestamp '2020-13-45'", "!!timestamp"),
])
def test_yaml_tags_are_refused_with_their_line(cli, write_suite, value, shown):
    _refused(cli, write_suite, _suite("suite: toy", f"suite: {value}"), f"YAML tag '{shown}' is not allowed", 2)


@pytest.mark.parametrize(("value", "message"), [
    ("2020-13-45", "month must be in 1..12"),
    ("9" * 5000, "Exceeds the limit"),
])
def test_plain_value_yaml_cannot_build_is_a_positioned_error(cli, write_suite, value, message):
    _refused(cli, write_suite, _suite("suite: toy", f"suite: {value}"), message, 2)


@pytest.mark.parametrize("key", ["? [a, b]\n: 1\n", "? {a: 1}\n: 1\n"])
def test_list_or_mapping_as_a_key_is_refused(cli, write_suite, key):
    _refused(cli, write_suite, _suite(extra=key), "a key must be a name or a number", 10)


def test_alias_inside_its_own_block_is_refused_not_a_recursion_error(cli, write_suite):
    _refused(cli, write_suite, _suite(extra="report: &r {notes: [*r]}\n"), "lies inside the block it names", 10)


@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ("{a: ", "}")])
def test_nesting_5000_deep_is_refused_not_a_recursion_error(cli, write_suite, opening, closing):
    text = _suite(extra=f"description: {opening * 5000}1{closing * 5000}\n")
    _refused(cli, write_suite, text, "blocks nest deeper than 64 levels", 10)


def test_billion_laughs_is_refused_at_once(cli, write_suite):
    assert len(LAUGHS) == 342
    started = time.monotonic()
    _refused(cli, write_suite, _suite(extra=LAUGHS), "anchors and aliases expand this file past", 14)
    assert time.monotonic() - started < 5


def test_aliases_of_small_blocks_still_load(cli, write_suite):
    text = _suite("thr: {impl: threshold, params: {t: [0.0, 0.5]}}",
                  "thr: {impl: threshold, params: &grid {t: [0.0, 0.5]}}\n  again: {impl: threshold, params: *grid}")
    code, out, err = cli("validate", str(write_suite(text)))
    assert code == 0 and "(4 method variants)" in out, err  # the alias copies the grid


@pytest.mark.parametrize(("cell", "message"), [
    ("{mean[0]}", "uses the field {mean[0]}"),
    ("{mean.real}", "uses the field {mean.real}"),
    ("{spread}", "uses the field {spread}"),
    ("{}", "uses the field {}"),
    ("{mean:{n}}", "the format '{n}'"),
    ("{mean:999999999}", "the format '999999999'"),
    ("{mean:d}", "cannot be filled in"),
    ("{mean", "is not a format template"),
])
def test_report_cell_may_use_only_plain_named_fields(cli, write_suite, cell, message):
    _refused(cli, write_suite, _suite(extra=f'report: {{cell: "{cell}"}}\n'), message, 10, command="plan")


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_predictions_template_with_indexing_is_refused_by_validate_and_plan(cli, write_suite, command):
    text = _suite("thr: {impl: threshold, params: {t: [0.0, 0.5]}}", "theirs: {predictions: '{seed[0]}.parquet'}")
    _refused(cli, write_suite, text, "uses the field {seed[0]}", 9, command)


def test_400_digit_memory_size_is_refused(cli, write_suite):
    text = _suite("timeout: 20s", f"timeout: 20s, resources: {{mem: '{'9' * 400}G'}}")
    _refused(cli, write_suite, text, "is larger than 1024T", 4)


@pytest.mark.parametrize("timeout", [".nan", ".inf", "-.inf", "1.0e+400", f"'{'9' * 400}s'", "0", "721h"])
def test_timeout_must_be_finite_positive_and_at_most_a_month(cli, write_suite, timeout):
    _refused(cli, write_suite, _suite("timeout: 20s", f"timeout: {timeout}"), "a duration must be positive", 4)


@pytest.mark.parametrize(("old", "new", "field", "line"), [
    ("schema_version: 1", "schema_version: true", "schema_version", 1),
    ("schema_version: 1", "schema_version: 1.0", "schema_version", 1),
    ("seeds: [0, 1]", "seeds: [true]", "defaults.seeds.0", 4),
    ("seeds: [0, 1]", "seeds: [1.0]", "defaults.seeds.0", 4),
    ("timeout: 20s", "timeout: 20s, threads: true", "defaults.threads", 4),
    ("timeout: 20s", "timeout: 20s, resources: {gpus: true}", "defaults.resources.gpus", 4),
])
def test_booleans_and_floats_are_not_integers(cli, write_suite, old, new, field, line):
    _refused(cli, write_suite, _suite(old, new), f"{field}:", line)


def test_boolean_is_not_a_regression_tolerance(cli, write_suite):
    text = _suite(extra="regression: {rules: [{metric: accuracy, max_drop: true}]}\n")
    _refused(cli, write_suite, text, "expected a number, not true or false", 10)


@pytest.mark.parametrize(("seed", "message"), [
    (2**63, "less than 9223372036854775808"),
    (-1, "greater than or equal to 0"),
])
def test_seed_must_fit_the_stores_64_bit_column(cli, write_suite, seed, message):
    _refused(cli, write_suite, _suite("seeds: [0, 1]", f"seeds: [0, {seed}]"), message, 4)


def test_largest_64_bit_seed_is_accepted(cli, write_suite):
    code, _, err = cli("validate", str(write_suite(_suite("seeds: [0, 1]", f"seeds: [{2**63 - 1}]"))))
    assert code == 0, err


def test_dataset_path_that_cannot_be_read_is_a_user_error(cli, write_suite):
    text = _suite("args: {shift: 1.0}", "args: {shift: 1.0, path: /proc/self}")
    _refused(cli, write_suite, text, "dataset 'easy': its files cannot be read", 6, command="plan")


def test_validate_refuses_a_misspelled_regression_metric(cli, write_suite):
    text = _suite(extra="regression: {rules: [{metric: acuracy, max_drop: 0.1}]}\n")
    err = _refused(cli, write_suite, text, "regression.rules.0.metric: 'acuracy' is neither", 10)
    assert "Rules can name: accuracy, wall_s" in err


def test_regression_rule_may_name_a_report_measure(cli, write_suite):
    text = _suite(extra="report: {measures: [steps]}\nregression: {rules: [{metric: steps, max_ratio: 1.5}]}\n")
    code, _, err = cli("validate", str(write_suite(text)))
    assert code == 0, err


def test_unknown_method_says_how_to_register_one(cli, write_suite):
    err = _refused(cli, write_suite, _suite("impl: threshold", "impl: my_method"), "unknown method 'my_method'", 9)
    assert "--plugin FILE.py" in err


def test_grid_too_large_to_plan_is_refused(cli, write_suite):
    values = list(range(101))
    text = _suite("params: {t: [0.0, 0.5]}", f"params: {{t: {values}, noise: {values}}}")
    _refused(cli, write_suite, text, "the grid has 10,201 points, over 10,000", 9)
