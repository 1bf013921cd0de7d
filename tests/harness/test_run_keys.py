"""A run key changes when the answer can: the suite's thread count enters it unless it is 1, the default."""
from __future__ import annotations

from harness.planner import plan
from harness.registry import load_plugin_file
from harness.suite import load_suite
from tests.conftest import TOY_PLUGIN, TOY_SUITE


def _keys(write_suite, tmp_path, defaults: str) -> list[str]:
    load_plugin_file(TOY_PLUGIN)
    text = TOY_SUITE.replace("defaults: {seeds: [0, 1], timeout: 20s}", f"defaults: {{{defaults}}}")
    suite, source = load_suite(write_suite(text, name=f"{len(defaults)}.yaml"))
    return [run.run_key for run in plan(suite, source, tmp_path)]


def test_a_thread_count_other_than_one_makes_other_run_keys(write_suite, tmp_path):
    unset = _keys(write_suite, tmp_path, "seeds: [0, 1], timeout: 20s")
    assert _keys(write_suite, tmp_path, "seeds: [0, 1], timeout: 20s, threads: 1") == unset
    two = _keys(write_suite, tmp_path, "seeds: [0, 1], timeout: 20s, threads: 2")
    assert len(two) == len(unset) and not set(two) & set(unset)
