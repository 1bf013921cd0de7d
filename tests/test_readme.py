"""The README stays true: its Quick start commands are the ones CI runs, its GitHub Actions example installs
and gates as the Quick start does, and its worked example runs as written."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from harness.cli import build_parser, main
from harness.store import Store

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def _section(title: str) -> str:
    return README.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_command():
    blocks = re.findall(r"```bash\n(.*?)```", _section("Quick start"), flags=re.S)
    assert len(blocks) == 2
    install_and_run, test_command = (b.strip() for b in blocks)
    assert "torch==2.13.0" in install_and_run and "harness run suites/quickstart.yaml" in install_and_run
    ci = (REPO / ".ci" / "run").read_text()
    assert test_command.replace("python ", "python3 ") in ci


def test_worked_example_plugin_runs_as_written_and_report_needs_it_again(tmp_path, capsys):
    example = re.search(r"```python\n(# degree_plugin.py\n.*?)```", _section("Adding a method (worked example)"),
                        flags=re.S).group(1)
    plugin = tmp_path / "degree_plugin.py"
    plugin.write_text(example)
    suite = tmp_path / "degree.yaml"
    suite.write_text(
        "schema_version: 1\nsuite: readme\ntask: graph_anomaly.node_scoring\ndefaults: {seeds: [0]}\n"
        "datasets: {cliques: {loader: injected_sbm, args: {num_nodes: 600, num_contextual: 0,"
        " num_structural: 80, clique_size: 10}}}\n"
        "metrics: [auroc]\nmethods:\n  degree: {impl: mine.degree, params: {log: [false, true]}}\n"
    )
    store = tmp_path / "s.sqlite"
    assert main(["run", str(suite), "--store", str(store), "--plugin", str(plugin)]) == 0
    records = list(Store(store).records())
    assert {r["method"] for r in records} == {"degree[log=False]", "degree[log=True]"}
    assert all(r["metrics"]["auroc"] > 70 for r in records)  # cliques raise their members' degree
    assert all(r["measurements"]["max_degree"]["unit"] == "edges" for r in records)
    report = ["report", str(suite), "--store", str(store), "--out", str(tmp_path / "report"), "--format", "md"]
    assert main(report + ["--plugin", str(plugin)]) == 0
    without = subprocess.run([sys.executable, "-m", "harness.cli", *report], capture_output=True, text=True,
                             timeout=120)
    assert without.returncode == 3 and "mine.degree" in without.stderr


def test_github_actions_example_installs_as_the_quick_start_does_and_its_harness_command_parses():
    workflow = yaml.safe_load(re.search(r"```yaml\n(# .github/workflows/benchmark-gate.yml\n.*?)```", README,
                                        flags=re.S).group(1))
    steps = [step["run"] for step in workflow["jobs"]["quickstart"]["steps"] if "run" in step]
    quick_start = re.search(r"```bash\n(.*?)```", _section("Quick start"), flags=re.S).group(1)
    installs = [command.strip() for command in quick_start.split("&&") if command.strip().startswith("pip ")]
    assert [step for step in steps if step.startswith("pip ")] == installs
    (torch,) = [command for command in installs if "torch==" in command]
    assert "--index-url https://download.pytorch.org/whl/cpu" in torch  # PyPI's Linux torch is the CUDA build
    (gate,) = [step for step in steps if step.startswith("harness ")]
    arguments = build_parser().parse_args(shlex.split(gate)[1:])
    assert arguments.suite == Path("suites/quickstart.yaml")
