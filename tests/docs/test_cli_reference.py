"""docs/cli.md is what docs/gen_cli_reference.py writes from today's parser, and names every subcommand."""
from __future__ import annotations

import re
from pathlib import Path

from tests.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "docs" / "gen_cli_reference.py"


def _generator():
    return load_script(GENERATOR)


def test_the_committed_cli_reference_is_what_the_parser_generates():
    generator = _generator()
    expected = generator.render(generator.build_parser())
    assert (REPO / "docs" / "cli.md").read_text() == expected, \
        "docs/cli.md is stale: run `python docs/gen_cli_reference.py` and commit the result"


def test_the_reference_has_a_section_with_every_option_of_every_subcommand():
    generator = _generator()
    parser = generator.build_parser()
    text = generator.render(parser)
    commands = generator.subcommands(parser)
    assert re.findall(r"^## harness (\S+)$", text, flags=re.M) == list(commands)
    for name, (_, sub) in commands.items():
        section = text.split(f"## harness {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in generator.arguments(sub):
            assert all(spelling in section for spelling in action.option_strings or [generator.metavar(action)])
    run_section = text.split("## harness run\n", 1)[1].split("\n## ", 1)[0]
    assert ("| `--jobs, -j JOBS` | `1` | parallel worker processes (local executor); at most one per CPU and per "
            "queued run |") in run_section
    assert "| `--retries RETRIES` | `0` |" in run_section  # a zero default is shown, not taken for unset
    assert "95% interval over seeds" in text  # argparse's %% printed as --help prints it
