"""The README's extras table is what docs/gen_extras_table.py writes from pyproject.toml, the families' manifests
and the tests' `require_extra` calls: every extra has a row, and each family's test folder is under its extra."""
from __future__ import annotations

import tomllib
from pathlib import Path

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "docs" / "gen_extras_table.py"


def _generator():
    return load_script(GENERATOR)


def test_the_readmes_extras_table_is_current():
    generator = _generator()
    readme = (REPO / "README.md").read_text()
    assert generator.with_table(readme, generator.table()) == readme, \
        "README.md's extras table is stale: run `python docs/gen_extras_table.py` and commit the result"


def test_every_extra_has_a_row_and_every_family_folder_is_unlocked_by_its_extra():
    table = _generator().table()
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    rows = {line.split("|")[1].strip().split("`")[1]: line for line in table.splitlines()[3:-1]}
    assert list(rows) == list(extras)
    for manifest in REPO.glob("methods/*/family.toml"):
        extra = tomllib.loads(manifest.read_text())["extra"]
        assert f"`tests/{manifest.parent.name}/`" in rows[extra]
    assert "`tests/scaleout/test_ray.py`" in rows["ray"] and "(Quick start)" in rows["graph"]
