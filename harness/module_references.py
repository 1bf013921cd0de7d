"""Modules a suite's text names (`python -m methods.x.tables` in a comment, `methods.x.scaling` in a note) must
exist: a reader who runs the named command should not find it missing. Checked on the file system and with `ast`,
never by importing, so validating a suite stays free of the families' heavy imports."""
from __future__ import annotations

import ast
import importlib.util
import re
from functools import cache
from pathlib import Path

from harness.errors import SuiteError

PROJECT_PACKAGES = ("methods", "kernels", "harness")
_REFERENCE = re.compile(rf"\b(?:{'|'.join(PROJECT_PACKAGES)})(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def check_module_references(path: Path, text: str) -> None:
    """Raise `SuiteError` at the first dotted name under a project package that is neither a module nor a name
    defined in one, with its line."""
    for match in _REFERENCE.finditer(text):
        if not resolves(match.group()):
            line = text.count("\n", 0, match.start()) + 1
            raise SuiteError(f"'{match.group()}' names a module (or a name in one) that does not exist", file=path,
                             line=line, hint="Correct the name, or remove the reference if the module was retired.")


def resolves(dotted: str) -> bool:
    """Whether `dotted` is a project module or package, or a name a module (or a package's `__init__`) defines.
    The part after the module must be a top-level name of its source: `a.b.func` resolves, `a.b.func.attr` is
    accepted once `func` exists."""
    top, *rest = dotted.split(".")
    folder = _package_folder(top)
    if folder is None:
        return False
    for index, part in enumerate(rest):
        if (folder / part / "__init__.py").is_file():
            folder = folder / part
        elif (folder / f"{part}.py").is_file():
            names = rest[index + 1:]
            return not names or names[0] in _defined_names(folder / f"{part}.py")
        else:
            return part in _defined_names(folder / "__init__.py")
    return True


@cache
def _package_folder(name: str) -> Path | None:
    """Where the top-level package `name` lives, found without importing it."""
    spec = importlib.util.find_spec(name)
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


@cache
def _defined_names(module: Path) -> frozenset[str]:
    """The names a module binds at its top level: definitions, assignments and imports."""
    if not module.is_file():
        return frozenset()
    names: set[str] = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(names)
