"""A suite that names a project module (in a comment, a note, a description) is refused by `validate` when the
module or the name in it does not exist, at the line that names it."""
from __future__ import annotations

import pytest

from harness.module_references import resolves
from tests.conftest import TOY_SUITE


@pytest.mark.parametrize("dotted", ["harness.validate", "harness.validate.validate_suite", "methods.common",
                                    "harness.reporting.rank_tests", "harness.errors.SuiteError.message"])
def test_existing_modules_and_names_in_them_resolve(dotted):
    assert resolves(dotted)


@pytest.mark.parametrize("dotted", ["harness.no_such_module", "harness.validate.no_such_function",
                                    "methods.no_family.tables", "harness.reporting.no_such_module"])
def test_missing_modules_and_names_do_not_resolve(dotted):
    assert not resolves(dotted)


def test_validate_refuses_a_comment_naming_a_missing_module_at_its_line(cli, write_suite):
    path = write_suite(TOY_SUITE + "# the table comes from `python -m harness.reporting.no_such_tables`\n")
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert f"{path}:{TOY_SUITE.count(chr(10)) + 1}:" in err
    assert "'harness.reporting.no_such_tables' names a module" in err and "Traceback" not in err


def test_validate_accepts_a_comment_naming_an_existing_module(cli, write_suite):
    code, out, _ = cli("validate", str(write_suite(TOY_SUITE + "# rendered by `python -m harness.reporting`\n")))
    assert code == 0, out
