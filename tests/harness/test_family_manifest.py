"""Family manifests: `family.toml` registers a family's names, and a malformed one says where and what."""
from __future__ import annotations

import sys
import textwrap
import types

import pytest

from harness import family_manifest
from harness.errors import RegistryError
from harness.registry import Registry

MANIFEST = """\
[tasks.scoring]
target = "task:Scoring"
description = "score points"

[datasets.blobs]
target = "data:blobs"
description = "two Gaussians"

[metrics.auroc]
target = "metrics:AUROC"
description = "area under the ROC curve"

[methods.mine]
target = "mine:Mine"
task = "scoring"
params = "MineParams"
description = "the paper's method"

[methods.both]
target = "baselines.both:Both"
task = ["scoring", "other.task"]
description = "a baseline of two tasks"

[methods.knn]
target = "baselines.knn:Knn"
task = "scoring"
params = "baselines.knn:KnnParams"
description = "a baseline whose parameters live in its own torch-free module"
"""


@pytest.fixture
def registries(monkeypatch):
    fresh = {kind: Registry(kind) for kind in ("tasks", "datasets", "metrics", "methods")}
    for kind, registry in fresh.items():
        monkeypatch.setattr(family_manifest, kind, registry)
    return fresh


def _family(tmp_path, monkeypatch, manifest: str) -> str:
    package = tmp_path / "probe_family"
    package.mkdir()
    (package / "family.toml").write_text(textwrap.dedent(manifest))
    module = types.ModuleType("probe.probe_family")
    module.__file__ = str(package / "__init__.py")
    monkeypatch.setitem(sys.modules, "probe.probe_family", module)
    return "probe.probe_family"


def test_a_manifest_registers_prefixed_names_with_package_relative_targets(tmp_path, monkeypatch, registries):
    family_manifest.register_family(_family(tmp_path, monkeypatch, MANIFEST))
    assert registries["tasks"].entry("probe_family.scoring").target == "probe.probe_family.task:Scoring"
    assert registries["datasets"].entry("probe_family.blobs").description == "two Gaussians"
    assert registries["metrics"].entry("probe_family.auroc").target == "probe.probe_family.metrics:AUROC"
    mine = registries["methods"].entry("probe_family.mine")
    assert mine.meta == {"task": "probe_family.scoring", "params": "probe.probe_family.params:MineParams"}
    both = registries["methods"].entry("probe_family.both")
    assert both.meta == {"task": ("probe_family.scoring", "other.task"), "params": "harness:MethodParams"}
    knn = registries["methods"].entry("probe_family.knn")
    assert knn.meta["params"] == "probe.probe_family.baselines.knn:KnnParams"


@pytest.mark.parametrize(("manifest", "field", "problem"), [
    ('[methods.x]\ntarget = "m:X"\ndescription = "x"\n', "methods.x.task", "is missing"),
    ('[metrics.x]\ntarget = "m:X"\ndescription = "x"\nunit = "%"\n', "metrics.x.unit", "not a key"),
    ('[tasks.x]\ntarget = "no colon"\ndescription = "x"\n', "tasks.x.target", "should match pattern"),
    ('[methods.x]\ntarget = "m:X"\ntask = "t"\nparams = "m:X:Y"\ndescription = "x"\n', "methods.x.params",
     "should match pattern"),
    ('[widgets.x]\ntarget = "m:X"\ndescription = "x"\n', "widgets", "not a key"),
    ('[methods.x]\ntarget = "m:X"\ntask = "nowhere"\ndescription = "x"\n', "methods.x.task", "does not list"),
])
def test_a_malformed_manifest_names_the_file_and_the_field(tmp_path, monkeypatch, registries, manifest, field,
                                                           problem):
    with pytest.raises(RegistryError) as caught:
        family_manifest.register_family(_family(tmp_path, monkeypatch, manifest))
    assert caught.value.field == field and problem in caught.value.message
    assert str(caught.value.file).endswith("probe_family/family.toml")


def test_invalid_toml_and_a_missing_manifest_are_user_errors(tmp_path, monkeypatch, registries):
    package = _family(tmp_path, monkeypatch, '[tasks.x\n')
    with pytest.raises(RegistryError, match="not valid TOML.*line 1"):
        family_manifest.register_family(package)
    (tmp_path / "probe_family" / "family.toml").unlink()
    with pytest.raises(RegistryError, match="no family manifest"):
        family_manifest.register_family(package)
