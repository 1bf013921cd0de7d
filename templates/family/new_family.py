"""Starts a family from this template: `python templates/family/new_family.py NAME`.

Copies the package to `methods/NAME/` and its suite, tests, repeat-run suite and benchmark to where the
repository keeps them, with the placeholder `my_family` renamed NAME in names and text, and prints the steps
left to do by hand (`docs/adding-a-family.md` has the whole checklist). It never overwrites a file.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent
PLACEHOLDER = "my_family"   # also spelt my-family where an extra's name needs a hyphen
NEXT_STEPS = """
Next, by hand (docs/adding-a-family.md):
  1. pyproject.toml: `{name} = "methods.{name}"` under [project.entry-points."harness.families"], and an
     extra with the family's dependencies; then `pip install -e .` again, which registers the entry point.
  2. Replace the starter's task, data, metric, method and baseline with the paper's, one baseline per module
     in baselines/, each method's parameters (with `tiny` values) in params.py; give the task a
     `tiny_instance` for tests/conformance, and every method a line in tests/repeat_runs/{name}.yaml.
  3. suites/{name}.yaml: the paper's datasets, its cited numbers as `references`, its claims as `claims`
     (6 seeds or more); list it under `suites` in family.toml's [reports], run `python docs/gen_regenerate.py`,
     and commit its report.
  4. methods/{name}/README.md; family.toml's [readme] row, written into the README's Families table by
     `python docs/gen_families_table.py`.
"""


def destinations(repo: Path, name: str) -> dict[Path, Path]:
    """Each template file or folder, and where it goes in the repository."""
    return {
        TEMPLATE / PLACEHOLDER: repo / "methods" / name,
        TEMPLATE / "suites" / f"{PLACEHOLDER}.yaml": repo / "suites" / f"{name}.yaml",
        TEMPLATE / "tests" / PLACEHOLDER / f"test_{PLACEHOLDER}.py": repo / "tests" / name / f"test_{name}.py",
        TEMPLATE / "tests" / "repeat_runs" / f"{PLACEHOLDER}.yaml": repo / "tests" / "repeat_runs" / f"{name}.yaml",
        TEMPLATE / "benchmarks" / f"test_bench_{PLACEHOLDER}.py": repo / "benchmarks" / f"test_bench_{name}.py",
    }


def create_family(repo: Path, name: str) -> list[Path]:
    """Write the renamed copies; a `ValueError` for a bad name or a path that exists, before writing anything."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"'{name}' is not a lower_snake_case name such as graph_anomaly")
    targets = destinations(repo, name)
    taken = [str(target) for target in targets.values() if target.exists()]
    if taken:
        raise ValueError(f"{taken[0]} exists already; choose another name")
    written: list[Path] = []
    for source, target in targets.items():
        files = [source] if source.is_file() else sorted(
            path for path in source.rglob("*") if path.is_file() and "__pycache__" not in path.parts)
        for file in files:
            out = target if source.is_file() else target / file.relative_to(source)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(renamed(file.read_text(), name))
            written.append(out)
    return written


def renamed(text: str, name: str) -> str:
    return text.replace(PLACEHOLDER, name).replace(PLACEHOLDER.replace("_", "-"), name.replace("_", "-"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 3
    repo = TEMPLATE.parents[1]
    try:
        written = create_family(repo, argv[0])
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    for path in written:
        print(f"created {path.relative_to(repo)}")
    print(NEXT_STEPS.format(name=argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
