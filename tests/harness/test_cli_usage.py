"""The command line's own mistakes and edges: usage errors are exit 3 (2 means failed runs), bad numbers and
executors are refused before anything runs, empty exports and closed pipes end with a message or quietly."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import harness.record
from harness.cli import BROKEN_PIPE_EXIT, COMMANDS, build_parser, main
from tests.conftest import REPO, TOY_PLUGIN


@pytest.mark.parametrize("argv", [["run"], ["no-such-command"], ["plan", "s.yaml", "--no-such-option"]])
def test_usage_mistakes_exit_3_not_the_failed_runs_code(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 3
    assert "usage: harness" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value"),
                         [("--jobs", "0"), ("--jobs", "-1"), ("--jobs", "two"), ("--retries", "-1")])
def test_counts_below_their_minimum_are_refused_when_parsed(option, value, write_suite, capsys):
    """`--jobs 0` once left the local executor waiting forever for a worker that never started."""
    with pytest.raises(SystemExit) as stop:
        main(["run", str(write_suite()), option, value])
    assert stop.value.code == 3
    assert f"argument {option}" in capsys.readouterr().err


def test_an_unknown_executor_is_refused_even_when_nothing_is_left_to_run(cli, write_suite, store):
    suite = write_suite()
    assert cli("run", str(suite), "--store", str(store), "--executor", "inline")[0] == 0
    code, _, err = cli("run", str(suite), "--store", str(store), "--executor", "locall")
    assert code == 3 and "unknown executor 'locall'" in err and "'local'" in err


def test_export_with_nothing_to_export_names_the_store_and_its_suites(cli, write_suite, store, tmp_path):
    out = tmp_path / "runs.csv"
    assert cli("run", str(write_suite()), "--store", str(store), "--executor", "inline")[0] == 0
    code, _, err = cli("export", "--store", str(store), "--suite", "suite.yaml", "--out", str(out))
    assert code == 3 and f"store {store} holds no runs of suite 'suite.yaml'" in err and "holds: toy" in err
    assert not out.exists()


@pytest.mark.parametrize("command", [["schema"], ["plan", "SUITE", "--plugin", TOY_PLUGIN]])
def test_a_closed_output_pipe_ends_quietly(command, write_suite):
    """`harness plan ... | head -1` once ended in a BrokenPipeError traceback."""
    argv = [str(write_suite()) if part == "SUITE" else part for part in command]
    child = subprocess.Popen([sys.executable, "-m", "harness.cli", *argv], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the first line is written
    _, err = child.communicate(timeout=60)
    assert child.returncode == BROKEN_PIPE_EXIT and err == b""


def test_report_without_the_plugin_says_to_pass_it(cli, write_suite, store):
    """A fresh process, as the user's: in this one the toy plugin may already be registered."""
    suite = write_suite()
    assert cli("run", str(suite), "--store", str(store), "--executor", "inline")[0] == 0
    report = subprocess.run([sys.executable, "-m", "harness.cli", "report", str(suite), "--store", str(store)],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert report.returncode == 3 and "--plugin FILE.py" in report.stderr and "Traceback" not in report.stderr


def test_the_parser_offers_one_subcommand_per_module_in_help_order(capsys):
    """`build_parser` is public so that a CLI reference can be rendered from it: it must hold every command."""
    names = [command.NAME for command in COMMANDS]
    assert names == ["validate", "plan", "run", "score", "ls", "export", "ingest", "report", "explain", "site",
                     "compare", "ci", "reproduce", "bench", "schema", "sys-info"]
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["--help"])
    listed = [line.split()[0] for line in capsys.readouterr().out.split("COMMAND\n", 1)[1].splitlines()
              if line.startswith("    ") and not line.startswith("     ")]
    assert stop.value.code == 0 and listed == names


def test_help_imports_no_heavy_library():
    """`harness --help` must start fast: pandas, psutil, numpy and torch load only in the commands that use them."""
    probe = ("import sys\nfrom harness.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print(sorted({'pandas', 'psutil', 'numpy', 'torch', 'jinja2'} & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_schema_record_prints_the_run_record_json_schema(cli):
    code, out, _ = cli("schema", "--record")
    assert code == 0 and json.loads(out) == harness.record.record_json_schema()
    assert json.loads(out) != json.loads(cli("schema")[1])
