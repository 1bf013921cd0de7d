"""The registry: lazy entries, refusal of duplicates, third-party entry points."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from harness.errors import RegistryError
from harness.registry import Registry


def test_entries_load_lazily_from_module_attr_strings():
    registry = Registry("methods")
    registry.add("x.sqrt", "math:sqrt", "square root")
    entry = registry.entry("x.sqrt")
    assert entry.target == "math:sqrt" and entry.load()(9.0) == 3.0


def test_duplicate_names_are_refused():
    registry = Registry("methods")
    registry.add("x.a", "math:sqrt", "first")
    with pytest.raises(RegistryError, match="registered twice"):
        registry.add("x.a", "math:floor", "second")


def test_short_names_resolve_within_a_family_with_did_you_mean():
    registry = Registry("methods")
    registry.add("fam.gcn", "math:sqrt", "gcn")
    assert registry.resolve("gcn", family="fam") == "fam.gcn"
    with pytest.raises(RegistryError) as caught:
        registry.resolve("gnc", family="fam")
    assert "Did you mean 'gcn'" in caught.value.hint


def test_third_party_methods_register_through_entry_points(tmp_path):
    dist = tmp_path / "thirdparty_methods-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-methods\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [harness.methods]
        thirdparty.sqrt = math:sqrt
        """))
    probe = "from harness.cli import main; main(['ls', 'methods'])"
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    listed = dict(line.split(maxsplit=1) for line in result.stdout.splitlines())
    assert listed["thirdparty.sqrt"] == "plugin from thirdparty-methods"


def test_sys_info_prints_the_recorded_environment(capsys):
    import json

    from harness.cli import main

    assert main(["sys-info"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["hardware"]["cores"] >= 1 and len(info["hardware_fingerprint"]) == 12


def _entry(kind: str, target, **meta):  # noqa: ANN001, ANN202
    from harness.registry import REGISTRIES

    registry = Registry(kind, REGISTRIES[kind].check)
    registry.add("x.entry", target, "under test", **meta)
    return registry.entry("x.entry")


@pytest.mark.parametrize("kind, target, expected", [
    ("methods", "math:sqrt", "not a subclass of harness.contracts.Method"),
    ("tasks", "collections:OrderedDict", "not a subclass of harness.contracts.Task"),
    ("executors", "harness.contracts:Task", "not a subclass of harness.executors.base.Executor"),
    ("metrics", "math:pi", "not a harness.contracts.Metric"),
    ("datasets", "math:pi", "not a callable dataset loader"),
])
def test_an_entry_that_is_not_its_kinds_contract_is_refused_when_loaded(kind, target, expected):
    entry = _entry(kind, target)
    with pytest.raises(RegistryError) as caught:
        entry.load()
    assert "'x.entry'" in str(caught.value) and expected in str(caught.value)


def test_entries_of_the_right_kind_load():
    from harness.contracts import Metric

    assert isinstance(_entry("metrics", Metric("m", len, higher_is_better=True)).load(), Metric)
    assert _entry("datasets", "math:sqrt").load()(4.0) == 2.0
    assert _entry("executors", "harness.executors.inline:InlineExecutor").load().__name__ == "InlineExecutor"


def test_a_method_registered_with_other_params_than_its_class_declares_is_refused():
    from harness import Method, MethodParams

    class Declared(MethodParams):
        pass

    class Solver(Method[Declared]):
        def run(self, inputs, ctx):  # noqa: ANN001, ANN201
            return inputs

    assert _entry("methods", Solver, params=Declared).load() is Solver
    with pytest.raises(RegistryError, match="registered with params .*MethodParams, but its class declares"):
        _entry("methods", Solver, params="harness:MethodParams").load()


def test_a_method_class_that_sets_its_own_version_is_refused():
    from harness import Method

    class Stale(Method):
        version = "2"

        def run(self, inputs, ctx):  # noqa: ANN001, ANN201
            return inputs

    with pytest.raises(RegistryError, match="sets `version` on its class"):
        _entry("methods", Stale).load()
