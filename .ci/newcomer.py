"""The newcomer's path, as CI's first stage: the README's two Quick start commands, read from README.md itself and
run verbatim in a fresh virtual environment outside the clone, with nothing else installed.

Exit 0 when both commands exit 0 and every test the second one skips for a missing package names the extra to
install; otherwise 1, saying which. Both commands' wall times are printed.

    python3 .ci/newcomer.py [--repo DIR] [--venv DIR]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

QUICK_START = "## Quick start"
# A skip for a missing package that does not say which extra brings it: pytest.importorskip's own reason, or an
# ImportError turned into a skip.
UNNAMED_MISSING_PACKAGE = re.compile(r"could not import|No module named", re.IGNORECASE)
SKIP_LINE = re.compile(r"^SKIPPED \[\d+\] (?P<where>\S+?):(?: (?P<reason>.*))?$", re.MULTILINE)


def quick_start_commands(readme: str) -> tuple[str, str]:
    """The Quick start section's two bash blocks: the install-and-run command and the test command."""
    if QUICK_START not in readme:
        raise ValueError(f"README.md has no '{QUICK_START}' section")
    section = readme.split(QUICK_START, 1)[1].split("\n## ", 1)[0]
    blocks = [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]
    if len(blocks) != 2 or any("\n" in block for block in blocks):
        raise ValueError(f"README.md's Quick start must hold exactly two one-line bash blocks, found {blocks!r}")
    return blocks[0], blocks[1]


def unnamed_skips(pytest_output: str) -> list[str]:
    """The skip-summary lines (pytest -ra) of tests skipped for a missing package without naming its extra."""
    return [match.group(0) for match in SKIP_LINE.finditer(pytest_output)
            if UNNAMED_MISSING_PACKAGE.search(match.group("reason") or "")]


def newcomer_env(venv_dir: Path) -> dict[str, str]:
    """A shell with the venv activated, as a newcomer's would be: none of this machine's harness settings."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("HARNESS_", "PYTHON", "VIRTUAL_ENV", "CONDA"))}
    env["VIRTUAL_ENV"] = str(venv_dir)
    env["PATH"] = f"{venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_timed(label: str, command: str, repo: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `command` verbatim in bash at the repository root, echoing its output; (exit code, output)."""
    print(f"newcomer: {label}: {command}", flush=True)
    started = time.monotonic()
    process = subprocess.Popen(["bash", "-c", command], cwd=repo, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        sys.stdout.write(line)
        lines.append(line)
    code = process.wait()
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    print(f"newcomer: {label} exited {code} after {minutes} min {seconds:02d} s", flush=True)
    return code, "".join(lines)


def run_stage(repo: Path, venv_dir: Path) -> int:
    """Both Quick start commands in the venv at `venv_dir` (made, clean, when absent); 0 when they pass."""
    install, test = quick_start_commands((repo / "README.md").read_text(encoding="utf-8"))
    if not (venv_dir / "bin" / "python").exists():
        venv.create(venv_dir, with_pip=True)
    env = newcomer_env(venv_dir)
    for label, command in (("README command 1", install), ("README command 2", test)):
        code, output = run_timed(label, command, repo, env)
        if code != 0:
            print(f"newcomer: FAILED: {label} exited {code}", file=sys.stderr)
            return 1
    if unnamed := unnamed_skips(output):
        print("newcomer: FAILED: tests skipped for a missing package without naming the extra that installs it "
              "(tests/extras.py: require_extra):\n  " + "\n  ".join(unnamed), file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--venv", type=Path, help="a venv to use (default: a new one in a temporary folder)")
    args = parser.parse_args(argv)
    if args.venv:
        return run_stage(args.repo, args.venv)
    scratch = Path(tempfile.mkdtemp(prefix="newcomer-"))
    try:
        return run_stage(args.repo, scratch / "venv")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
