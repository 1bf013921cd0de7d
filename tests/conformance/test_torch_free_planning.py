"""`harness validate` and `harness plan` read a suite's methods through their declared parameter models, never
their code: checking every committed suite imports no torch (nor what sits on it), however many families load."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "torch_geometric", "transformers", "triton")
PROBE = """
import json, sys
from harness.cli import main
suites, store = sys.argv[1:-1], sys.argv[-1]
codes = {"validate": main(["validate", *suites])}
codes["plan"] = {suite: main(["plan", suite, "--store", store]) for suite in suites}
print(json.dumps({"codes": codes, "heavy": sorted(m for m in %r if m in sys.modules)}))
""" % (HEAVY,)


def test_validating_and_planning_every_committed_suite_imports_no_torch(tmp_path):
    suites = sorted(str(p) for p in (REPO / "suites").glob("*.yaml"))
    result = subprocess.run([sys.executable, "-c", PROBE, *suites, str(tmp_path / "plan.sqlite")],
                            capture_output=True, text=True, cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["codes"]["validate"] == 0, result.stderr[-2000:]
    planned = [suite for suite, code in report["codes"]["plan"].items() if code == 0]
    assert planned, "no suite planned: the probe checked nothing"  # real-data suites may lack their files
    assert report["heavy"] == []
