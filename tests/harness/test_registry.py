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
