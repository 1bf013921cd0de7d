"""`extends:`: a suite laid over its base (mappings merge, null drops a key, the rest replaces); errors name the
file their key comes from; circles, a missing base and a suite without its own name are refused."""
from __future__ import annotations

import pytest

from harness.errors import SuiteError
from harness.registry import load_plugin_file
from harness.suite import load_suite
from tests.conftest import TOY_PLUGIN, TOY_SUITE

FULL = """\
# the toy at full scale
extends: suite.yaml
suite: toy_full
defaults: {seeds: [0, 1, 2, 3, 4, 5]}
datasets:
  hard: {loader: numbers, args: {shift: 0.1}}
methods:
  thr: {params: {t: [0.0, 0.25, 0.5]}}
"""


@pytest.fixture(autouse=True)
def _toy():
    load_plugin_file(TOY_PLUGIN)


def test_a_suite_changes_its_base_key_by_key(write_suite):
    base, _ = load_suite(write_suite(TOY_SUITE))
    full, source = load_suite(write_suite(FULL, "full.yaml"))
    assert full.suite == "toy_full" and full.task == base.task and full.metrics == base.metrics
    assert full.defaults.seeds == [0, 1, 2, 3, 4, 5] and full.defaults.timeout == base.defaults.timeout == 20.0
    assert set(full.datasets) == {"easy", "hard"}  # mappings merge
    assert full.methods["thr"].impl == "threshold" and full.methods["thr"].params == {"t": [0.0, 0.25, 0.5]}
    assert [path.name for path in source.sources] == ["suite.yaml"]
    dropped, _ = load_suite(write_suite(FULL.replace("  hard:", "  easy: null\n  hard:"), "dropped.yaml"))
    assert set(dropped.datasets) == {"hard"}  # null drops the base's key


def test_an_error_names_the_file_its_key_comes_from(write_suite):
    write_suite(TOY_SUITE.replace("metrics: [accuracy]", "metrics: [acuracy]"))
    with pytest.raises(SuiteError) as inherited:
        load_suite(write_suite(FULL, "full.yaml"))
    assert inherited.value.file.name == "suite.yaml" and inherited.value.line == 7
    write_suite(TOY_SUITE)
    with pytest.raises(SuiteError) as own:
        load_suite(write_suite(FULL.replace("seeds: [0, 1, 2, 3, 4, 5]", "seeds: [0, 0]"), "full.yaml"))
    assert own.value.file.name == "full.yaml" and own.value.line == 4


@pytest.mark.parametrize(("text", "message"), [
    (FULL.replace("extends: suite.yaml", "extends: absent.yaml"), "the base suite absent.yaml does not exist"),
    (FULL.replace("extends: suite.yaml", "extends: full.yaml"), "extend each other in a circle"),
    (FULL.replace("suite: toy_full\n", ""), "a suite that extends another names itself"),
    (FULL.replace("extends: suite.yaml", "extends: [suite.yaml]"), "extends names a suite file"),
])
def test_a_bad_extends_is_refused_at_its_line(write_suite, text, message):
    write_suite(TOY_SUITE)
    with pytest.raises(SuiteError) as refused:
        load_suite(write_suite(text, "full.yaml"))
    assert message in str(refused.value) and refused.value.file.name == "full.yaml" and refused.value.line == 2
