"""No family imports another: what two families share lives in methods/common/ (a family can then be read, moved
or dropped alone). Only the modules' import statements count; a module `methods.<family>` named in a string (a model
another family trains, looked up at run time) is not an import."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = "common"


def foreign_imports(methods: Path = REPO / "methods") -> list[str]:
    """`family/module.py:line imports methods.other` for each import of another family's module."""
    found = []
    for path in sorted(methods.rglob("*.py")):
        family = path.relative_to(methods).parts[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            for name in names:
                parts = name.split(".")
                if parts[0] == "methods" and len(parts) > 1 and parts[1] not in (family, SHARED):
                    found.append(f"{path.relative_to(methods)}:{node.lineno} imports {name}")
    return found


def test_no_family_imports_another():
    assert foreign_imports() == []


def test_an_import_of_another_family_is_found(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "m.py").write_text("import os\nfrom methods.common.graphs import x\n\ndef f():\n"
                                          "    from methods.b.data import y\n")
    assert [line.split(" imports ")[1] for line in foreign_imports(tmp_path)] == ["methods.b.data"]
