"""The README's Families table is what docs/gen_families_table.py writes from the families' manifests: every
family of methods/ has its `[readme]` row there, its suites from `[reports]`."""
from __future__ import annotations

from pathlib import Path

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
GENERATOR = load_script(REPO / "docs" / "gen_families_table.py")


def test_the_readmes_families_table_is_current_and_has_every_family():
    readme = (REPO / "README.md").read_text()
    families = GENERATOR.manifests()
    assert GENERATOR.with_table(readme, GENERATOR.table(families)) == readme, \
        "README.md's families table is stale: run `python docs/gen_families_table.py` and commit the result"
    assert [name for name, manifest in families.items() if manifest.readme is None] == []
    assert len(families) >= 19
