"""The root files agree with pyproject.toml: CITATION.cff is CFF 1.2.0 with the package's version and
licence, and LICENSE is the MIT licence pyproject.toml declares."""
from __future__ import annotations

import datetime
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_citation_is_cff_1_2_0_with_the_packages_version_and_licence():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0"
    assert citation["message"] and citation["title"]
    assert citation["authors"] and all(set(author) & {"name", "family-names"} for author in citation["authors"])
    assert citation["version"] == PROJECT["version"]
    assert citation["license"] == PROJECT["license"]["text"] == "MIT"
    datetime.date.fromisoformat(citation["date-released"])  # a quoted ISO date, as the CFF schema wants


def test_license_is_the_mit_licence_of_the_contributors():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the iclr26-harness contributors\n")
    assert "THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND" in text
