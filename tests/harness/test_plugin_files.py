"""`--plugin FILE.py`: a path that is not a Python file, and a plugin that fails or exits while it is imported,
are user errors naming the plugin (exit 3); `validate` never ends silently with a plugin's own exit code."""
from __future__ import annotations

import pytest

from harness.errors import USER_ERROR_EXIT


@pytest.fixture
def suite(write_suite) -> str:
    return str(write_suite())


def test_a_plugin_not_ending_in_py_is_refused(cli, suite, tmp_path):
    plugin = tmp_path / "plugin.txt"
    plugin.write_text("x = 1\n")
    code, _, err = cli("validate", suite, "--plugin", str(plugin), plugin=False)
    assert code == USER_ERROR_EXIT
    assert f"plugin file {plugin} is not a .py file" in err


def test_a_missing_plugin_is_refused(cli, suite, tmp_path):
    code, _, err = cli("validate", suite, "--plugin", str(tmp_path / "absent.py"), plugin=False)
    assert code == USER_ERROR_EXIT
    assert f"plugin file {tmp_path / 'absent.py'} does not exist" in err


def test_a_folder_given_as_a_plugin_is_refused(cli, suite, tmp_path):
    folder = tmp_path / "plugins.py"
    folder.mkdir()
    code, _, err = cli("validate", suite, "--plugin", str(folder), plugin=False)
    assert code == USER_ERROR_EXIT
    assert f"plugin {folder} is a folder, not a Python file" in err


@pytest.mark.parametrize("status", ["0", "'done'"])
def test_a_plugin_calling_sys_exit_is_a_user_error_naming_it(cli, suite, tmp_path, status):
    plugin = tmp_path / "exits.py"
    plugin.write_text(f"import sys\n\nsys.exit({status})\n")
    code, out, err = cli("validate", suite, "--plugin", str(plugin), plugin=False)
    assert code == USER_ERROR_EXIT and out == ""
    assert f"{plugin}:3: --plugin: plugin called sys.exit({status}) while it was imported" in err


def test_a_plugin_raising_is_a_user_error_at_its_line(cli, suite, tmp_path):
    plugin = tmp_path / "raises.py"
    plugin.write_text("x = 1\nraise ValueError('no such weights')\n")
    code, _, err = cli("validate", suite, "--plugin", str(plugin), plugin=False)
    assert code == USER_ERROR_EXIT
    assert f"{plugin}:2: --plugin: plugin raised ValueError while it was imported: no such weights" in err
    assert f"run `python {plugin}` to see its traceback" in err


def test_a_plugin_that_failed_loads_again_once_fixed(cli, suite, tmp_path):
    plugin = tmp_path / "fixed.py"
    plugin.write_text("raise ImportError('not yet')\n")
    assert cli("validate", suite, "--plugin", str(plugin))[0] == USER_ERROR_EXIT
    plugin.write_text("LOADED = True\n")
    assert cli("validate", suite, "--plugin", str(plugin))[0] == 0
