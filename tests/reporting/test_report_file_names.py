"""Names from a suite become file names only through `file_safe`: nothing a report writes leaves its folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.file_names import file_safe

ESCAPING = "x/../../../ESCAPED"

SUITE = f"""\
schema_version: 1
suite: toy
task: toy.sign
defaults: {{seeds: [0], timeout: 20s}}
datasets:
  easy: {{loader: numbers, args: {{shift: 1.0}}}}
metrics: [accuracy]
methods:
  "{ESCAPING}": {{impl: threshold, params: {{t: [0.0, 0.5]}}}}
"""


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def test_a_method_named_like_a_path_writes_its_plots_inside_the_output_folder(cli, write_suite, tmp_path):
    """`curve_{method}_{axis}.png` once put a file four folders above --out."""
    out = tmp_path / "a" / "b" / "c" / "out"
    store = tmp_path / "a" / "store.sqlite"
    suite = write_suite(SUITE)
    assert cli("run", str(suite), "--store", str(store), "--executor", "inline")[0] == 0
    before = _files(tmp_path)
    code, _, err = cli("report", str(suite), "--store", str(store), "--out", str(out), "--format", "png,pdf")
    assert code == 0, err
    written = _files(tmp_path) - before
    assert written and all(out in path.parents for path in written)
    assert sum("ESCAPED" in path.name for path in written) == 2  # the curve, as PNG and PDF


@pytest.mark.parametrize("name", [ESCAPING, "..", ".hidden", "a\\b", "a:b*c", "é" * 200, "", "curve_x y"])
def test_a_file_safe_name_is_one_plain_file_name(name):
    safe = file_safe(name)
    assert safe == Path(safe).name and not safe.startswith(".") and len(safe) <= 120
    assert set(safe) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=+-")


def test_plain_names_keep_their_file_names_and_different_names_never_share_one():
    assert file_safe("curve_thr_t") == "curve_thr_t" and file_safe("bars_rec_at_0.5") == "bars_rec_at_0.5"
    assert len({file_safe(n) for n in ("a/b", "a_b", "a:b", "a b")}) == 4
