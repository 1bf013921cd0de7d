"""The README stays true: its Quick start commands are the ones CI runs, and its worked example works."""
from __future__ import annotations

import re
from pathlib import Path

from harness.cli import main
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


def test_worked_example_method_runs_as_a_plugin(tmp_path, capsys):
    example = re.search(r"```python\n# methods/graph_anomaly/baselines/degree.py\n(.*?)```",
                        _section("Adding a method (worked example)"), flags=re.S).group(1)
    plugin = tmp_path / "degree_plugin.py"
    plugin.write_text(example + '\nfrom harness import methods\nmethods.add("readme.degree", DegreeScore, '
                      '"README example", task="graph_anomaly.node_scoring")\n')
    suite = tmp_path / "degree.yaml"
    suite.write_text(
        "schema_version: 1\nsuite: readme\ntask: graph_anomaly.node_scoring\ndefaults: {seeds: [0]}\n"
        "datasets: {cliques: {loader: injected_sbm, args: {num_nodes: 600, num_contextual: 0,"
        " num_structural: 80, clique_size: 10}}}\n"
        "metrics: [auroc]\nmethods:\n  degree: {impl: readme.degree, params: {log: [false, true]}}\n"
    )
    store = tmp_path / "s.sqlite"
    assert main(["run", str(suite), "--store", str(store), "--plugin", str(plugin)]) == 0
    records = list(Store(store).records())
    assert {r["method"] for r in records} == {"degree[log=False]", "degree[log=True]"}
    assert all(r["metrics"]["auroc"] > 70 for r in records)  # cliques raise their members' degree
    assert all(r["measurements"]["max_degree"]["unit"] == "edges" for r in records)
