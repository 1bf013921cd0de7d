"""Two toy suites run into one store, for the leaderboard site's tests.

`toy-report` is the report tests' hostile suite (a method and a dataset named with `<script>` and `"`,
a method that always fails, a cited number, a claim). `toy-second` shares the registered method
`toy.threshold` with it (under another suite name and parameter) and adds `toy.vote`, so a method page
gathers a method across suites. A third suite file has no runs, so the store's default selection skips it.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from harness.cli import main
from tests.reporting.conftest import SUITE, TOY_PLUGIN

SHOWN = ("toy-report", "toy-second")
NEVER_RUN = "toy-unrun"
SECOND = {
    "schema_version": 1,
    "suite": "toy-second",
    "task": "toy.sign",
    "description": "A second toy suite sharing toy.threshold",
    "defaults": {"seeds": [0, 1], "timeout": "20s"},
    "datasets": {"easy": {"loader": "numbers", "args": {"shift": 1.0}},
                 "wide": {"loader": "numbers", "args": {"shift": 0.5}}},
    "metrics": ["accuracy"],
    "methods": {"cut": {"impl": "threshold", "params": {"t": [0.2, 0.4]}}, "vote": {"impl": "vote"}},
    "claims": [{"text": "vote beats cut", "check": {"metric": "accuracy", "better": "vote", "than": "cut[t=0.2]"}}],
}


def make_site_store(folder: Path) -> tuple[Path, Path]:
    """(suites folder, store): both suites run inline; `toy-report`'s `broken` fails, as it should (exit 2)."""
    suites, store = folder / "suites", folder / "results.sqlite"
    suites.mkdir(parents=True)
    for suite, expected in ((SUITE, 2), (SECOND, 0)):
        path = suites / f"{suite['suite']}.yaml"
        path.write_text(yaml.safe_dump(suite, sort_keys=False, allow_unicode=True))
        code = main(["run", str(path), "--store", str(store), "--executor", "inline", "--plugin", TOY_PLUGIN])
        assert code == expected, f"harness run {path.name} exited {code}, expected {expected}"
    (suites / f"{NEVER_RUN}.yaml").write_text(
        yaml.safe_dump({**SECOND, "suite": NEVER_RUN, "claims": []}, sort_keys=False))
    return suites, store


def build_toy_site(folder: Path) -> Path:
    """The site of the toy suites (`make_site_store` in `folder`), built from their store by `harness site`."""
    suites, store = make_site_store(folder / "store")
    out = folder / "site"
    assert main(["site", "--store", str(store), "--suites-dir", str(suites), "--out", str(out),
                 "--plugin", TOY_PLUGIN]) == 0
    return out
