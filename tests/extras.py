"""Tests of a family whose pip extra is not installed skip, naming the extra and the install line: the README's
install (`.[graph,dev]`) runs every test it can and skips the rest cleanly.

A folder `tests/<family>/` of an installed family is skipped whole, before its conftest is imported, by the
collection hook in tests/conftest.py; a module elsewhere that needs an extra calls `require_extra` at its top.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.extras import install_hint, missing_for


class MissingExtra(pytest.File):
    """A test folder collected as one skip: its conftest and modules would import the absent packages."""

    reason: str

    def collect(self):  # noqa: ANN201 (pytest's own signature)
        pytest.skip(self.reason)


def skip_folder(path: Path, parent: pytest.Collector, reason: str) -> MissingExtra:
    """The collector standing for the test folder `path`: one skip, its reason led by the folder."""
    folder = MissingExtra.from_parent(parent, path=path)
    folder.reason = f"{path.relative_to(parent.config.rootpath).as_posix()}/: {reason}"
    return folder


def require_extra(extra: str, *installed_apart: str) -> None:
    """Skip the calling test module (or test) unless `extra` and the packages installed apart are installed."""
    missing = missing_for(extra, installed_apart)
    if missing:
        pytest.skip(f"needs the `{extra}` extra (not met here: {', '.join(missing)}): "
                    f"{install_hint(extra, installed_apart)}",
                    allow_module_level=True)
