"""The guides in docs/ stay true: each worked example's files (code blocks whose first line names a file,
`# precision_plugin.py`) and `harness` commands run as written, in a new interpreter each, so the examples'
names never enter this process's registries; the family.toml snippets are valid manifests pointing where
the families keep things; every relative link leads to a file."""
from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from harness import Metric
from harness.family_manifest import read_manifest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
GUIDES = ("adding-a-metric.md", "adding-a-dataset.md", "adding-a-task.md", "adding-a-family.md")


def _blocks(guide: str, language: str) -> list[str]:
    """The guide's fenced blocks in `language`, indentation (a block inside a list item) removed."""
    text = (DOCS / guide).read_text()
    found = re.findall(rf"^( *)```{language}\n(.*?)^\1```", text, flags=re.S | re.M)
    return ["".join(line[len(indent):] + "\n" for line in body.splitlines()) for indent, body in found]


def _write_example_files(guide: str, folder: Path) -> None:
    for language in ("python", "yaml"):
        for block in _blocks(guide, language):
            name = re.match(r"# ([\w.-]+\.(?:py|yaml))\n", block)
            if name:
                (folder / name.group(1)).write_text(block)


def _harness(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli", *arguments], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _run_guide_commands(guide: str, folder: Path) -> list[subprocess.CompletedProcess]:
    """Every `harness ...` line of the guide's bash blocks, as written, in order; each must exit 0."""
    lines = [line for block in _blocks(guide, "bash") for line in block.splitlines() if line.startswith("harness ")]
    assert lines, f"{guide} has no harness command"
    done = []
    for line in lines:
        result = _harness(shlex.split(line, comments=True)[1:], folder)
        assert result.returncode == 0, f"{guide}: `{line}` exited {result.returncode}: {result.stderr}"
        done.append(result)
    return done


@pytest.mark.slow
def test_metric_guide_scores_stored_runs_under_the_new_metric_then_runs_nothing(tmp_path):
    _write_example_files("adding-a-metric.md", tmp_path)
    suite = tmp_path / "precision.yaml"
    with_metric = suite.read_text()
    suite.write_text(with_metric.replace("[auroc, mine.precision_at_50]", "[auroc]"))
    assert _harness(["run", "precision.yaml"], tmp_path).returncode == 0  # the runs stored before the metric
    suite.write_text(with_metric)
    _, scored, ran, _ = _run_guide_commands("adding-a-metric.md", tmp_path)
    assert "2 runs scored (0 failed)" in scored.stdout
    assert "0 runs executed (0 failed), 2 already stored" in ran.stdout
    report = (tmp_path / ".harness" / "reports" / "precision_example" / "report.md").read_text()
    assert "## mine.precision\\_at\\_50 ↑ \\[%\\] (quality)" in report


def _write_graph_csvs(folder: Path) -> None:
    from methods.graph_anomaly.data import injected_sbm

    graph = injected_sbm(num_nodes=600, num_contextual=20, num_structural=20, clique_size=10, seed=0)
    folder.mkdir(parents=True)
    nodes = pd.DataFrame(graph.x, columns=[f"f{i}" for i in range(graph.x.shape[1])])
    nodes.insert(0, "label", graph.y)
    nodes.to_csv(folder / "nodes.csv", index=False)
    pd.DataFrame(graph.edge_index.T, columns=["src", "dst"]).to_csv(folder / "edges.csv", index=False)


@pytest.mark.slow
def test_dataset_guide_loads_a_users_files_and_refuses_a_bad_one_naming_its_line(tmp_path):
    _write_example_files("adding-a-dataset.md", tmp_path)
    _write_graph_csvs(tmp_path / "data" / "mygraph")
    *_, ran = _run_guide_commands("adding-a-dataset.md", tmp_path)
    assert "2 runs executed (0 failed)" in ran.stdout
    run = ["run", "edge_list.yaml", "--plugin", "edge_list_plugin.py"]
    elsewhere = _harness([*run, "--data-root", "elsewhere"], tmp_path)
    assert elsewhere.returncode == 3
    assert f"expected {tmp_path / 'elsewhere' / 'mygraph' / 'nodes.csv'}" in elsewhere.stderr
    nodes = tmp_path / "data" / "mygraph" / "nodes.csv"
    lines = nodes.read_text().splitlines()
    lines[6] = "2" + lines[6][1:]
    nodes.write_text("\n".join(lines) + "\n")
    refused = _harness([*run, "--data-root", "data"], tmp_path)
    assert refused.returncode == 3 and f"{nodes}:7: label 2 is not 0 or 1." in refused.stderr


def test_task_guide_runs_its_grid(tmp_path):
    _write_example_files("adding-a-task.md", tmp_path)
    validated, ran = _run_guide_commands("adding-a-task.md", tmp_path)
    assert "3 method variants" in validated.stdout
    assert "9 runs executed (0 failed)" in ran.stdout


@pytest.mark.parametrize(("guide", "family"), [
    ("adding-a-metric.md", "graph_anomaly"), ("adding-a-dataset.md", "graph_anomaly"), ("adding-a-task.md", "mine"),
])
def test_manifest_snippets_are_valid_family_manifests_pointing_into_the_family(guide, family, tmp_path):
    snippets = [block for block in _blocks(guide, "toml") if block.startswith("[")]
    assert snippets, f"{guide} shows no family.toml entry"
    for number, snippet in enumerate(snippets):
        (tmp_path / f"{number}.toml").write_text(snippet)
        manifest = read_manifest(tmp_path / f"{number}.toml")
        entries = [entry for kind in ("tasks", "datasets", "metrics", "methods") for entry in
                   getattr(manifest, kind).values()]
        assert entries, f"{guide}: {snippet}"
        for entry in entries:
            if (REPO / "methods" / family).is_dir():  # the module the family would hold it in exists
                __import__(f"methods.{family}.{entry.target.partition(':')[0]}")


def test_the_metric_guides_signature_is_metrics_fields():
    (signature,) = [block for block in _blocks("adding-a-metric.md", "python") if block.startswith("Metric(")]
    documented = re.findall(r"(\w+)(?:=[^,)]*)?[,)]", signature.split("(", 1)[1])
    assert documented == [field.name for field in dataclasses.fields(Metric)]


def test_the_family_guides_pyproject_snippet_has_the_tables_pyproject_has():
    (snippet,) = _blocks("adding-a-family.md", "toml")
    documented = tomllib.loads(snippet)["project"]
    actual = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert documented["entry-points"]["harness.families"] == {"my_family": "methods.my_family"}
    assert "harness.families" in actual["entry-points"] and "optional-dependencies" in actual
    assert all(value == f"methods.{key}" for key, value in actual["entry-points"]["harness.families"].items())


@pytest.mark.parametrize("page", [*(f"docs/{g}" for g in GUIDES), "CONTRIBUTING.md", "README.md",
                                  "templates/family/README.md"])
def test_relative_links_lead_to_files(page):
    path = REPO / page
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
        if "://" not in target:
            assert (path.parent / target).exists(), f"{page} links to {target}, which does not exist"
