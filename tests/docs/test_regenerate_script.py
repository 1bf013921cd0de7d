"""reports/regenerate.sh is what docs/gen_regenerate.py writes from the families' `[reports]`, and every committed
suite is a family's: reported (its report committed) or validated only, once, in the family its task names."""
from __future__ import annotations

from pathlib import Path

from harness.suite_extends import suite_document
from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
GENERATOR = load_script(REPO / "docs" / "gen_regenerate.py")


def test_the_committed_script_is_what_the_manifests_generate():
    assert GENERATOR.render(GENERATOR.manifests()) == (REPO / "reports" / "regenerate.sh").read_text(), \
        "reports/regenerate.sh is stale: run `python docs/gen_regenerate.py` and commit the result"


def test_every_committed_suite_is_listed_once_by_the_family_its_task_names():
    listed: dict[str, str] = {}
    for family, manifest in GENERATOR.manifests().items():
        for suite in [*manifest.reports.suites, *manifest.reports.validated_only]:
            assert suite not in listed, f"{suite} is listed by {listed[suite]} and {family}"
            listed[suite] = family
    suites = REPO / "suites"
    tasks = {path.stem: suite_document(path.read_text(), lambda name: (suites / name).read_text())["task"].split(".")[0]
             for path in suites.glob("*.yaml")}
    assert sorted(set(tasks) - set(listed)) == [], "suites no family.toml lists under [reports]"
    assert sorted(set(listed) - set(tasks)) == [], "suites a family.toml lists that suites/ lacks"
    assert {suite: listed[suite] for suite in tasks if listed[suite] != tasks[suite]} == {}
    assert all((REPO / "reports" / suite / "report.md").is_file()
               for manifest in GENERATOR.manifests().values() for suite in manifest.reports.suites)
