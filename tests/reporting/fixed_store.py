"""A results store with fixed contents (values, run ids, dates, environment), for golden tests.

Every number is chosen by hand, so a rendered report is byte-for-byte reproducible; the
store is written with the real planner and `Store.put`, so it is a genuine harness store.
"""
from __future__ import annotations

import math
from pathlib import Path

from harness.planner import plan
from harness.record import RunRecord
from harness.registry import load_plugin_file
from harness.store import Store
from harness.suite import load_suite

TOY_PLUGIN = str(Path(__file__).resolve().parents[1] / "plugins" / "toy_family.py")

SUITE = """\
schema_version: 1
suite: fixed
task: toy.sign
description: "A fixed store & its report (special characters: <b>, 50%, $x_1$, a|b)."
defaults: {seeds: [0, 1, 2]}
datasets:
  easy: {loader: numbers, args: {shift: 1.0}}
  hard_set: {loader: numbers}
metrics: [accuracy]
methods:
  thr: {impl: threshold, params: {t: [0.0, 0.5]}}
  noisy: {impl: threshold, params: {noise: 1.0}}
references:
  - {method: noisy, dataset: easy, metric: accuracy, value: 80.0, std: 1.5, source: "Doe et al. 2026, Table 2"}
  - {method: thr, dataset: full_scale, metric: accuracy, value: 97.5, source: "Doe et al. 2026, Table 1"}
claims:
  - {text: "thr beats noisy", check: {metric: accuracy, better: "thr[t=0.0]", than: noisy}}
  - {text: "thr is best everywhere", check: {metric: accuracy, best: "thr[t=0.0]"}}
report: {metric: accuracy, cell: "{mean:.1f} ± {ci95:.1f}"}
"""

# (method label, dataset) -> accuracy per seed; NaN and a failed seed on purpose.
VALUES = {
    ("thr[t=0.0]", "easy"): [99.0, 98.0, 100.0],
    ("thr[t=0.0]", "hard_set"): [91.0, 93.0, 92.0],
    ("thr[t=0.5]", "easy"): [86.0, 84.0, 88.0],
    ("thr[t=0.5]", "hard_set"): [80.0, math.nan, 82.0],
    ("noisy", "easy"): [78.0, 79.0, 83.0],
    ("noisy", "hard_set"): [70.0, None, None],  # None: the run failed
}
ENVIRONMENT = {"python": "3.11.7", "harness": "0.1.0", "git_sha": "0123456789abcdef", "git_dirty": False,
               "hardware": {"cpu": "Test CPU", "cores": 2, "gpus": []}, "hardware_fingerprint": "feedc0ffee00",
               "packages": {}}


EVIL_NAME = "evil<script>window.__pwned=1</script> & 50% $x_1$ #{}~^\\ [a|b]"


def write_fixed_store(folder: Path, evil: bool = False) -> tuple[Path, Path]:
    """Write the suite file and its store into `folder`; returns (suite path, store path).

    `evil` renames the method `noisy` to `EVIL_NAME`, full of HTML, Markdown and LaTeX specials.
    """
    load_plugin_file(TOY_PLUGIN)
    suite_path = folder / "fixed.yaml"
    text = SUITE.replace("noisy", "'" + EVIL_NAME + "'") if evil else SUITE
    suite_path.write_text(text)
    suite, source = load_suite(suite_path)
    store_path = folder / "results.sqlite"
    with Store(store_path) as store:
        for index, spec in enumerate(plan(suite, source, folder)):
            value = VALUES[(spec.method if spec.method_entry != EVIL_NAME else "noisy", spec.dataset.name)][spec.seed]
            timing = {"started_at": f"2026-11-30T12:00:{index:02d}.000+00:00",
                      "finished_at": f"2026-11-30T12:01:{index:02d}.000+00:00"}
            if value is None:
                outcome = {"status": "failed", "error": "ValueError: planted failure"}
            else:
                outcome = {"status": "ok", "metrics": {"accuracy": value},
                           "measurements": {"wall_s": {"value": 0.5 + index / 10, "unit": "s"},
                                            "samples": {"value": 100.0, "unit": "count"},
                                            "rate": {"value": value, "unit": "1/s", "higher_is_better": True}}}
            record = RunRecord.of(spec, **timing, **outcome, environment=ENVIRONMENT, device="cpu")
            store.put(record.changed(run_id=f"run{index:02d}"))
    return suite_path, store_path
