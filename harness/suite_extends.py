"""`extends:`: a suite written as the changes to another (a `_full` suite is its base at the paper's scale).

The base file, named relative to the suite's folder, is read first (itself extending another, if it says so), then
the suite's own keys are laid over it: a mapping merges key by key, a key set to null drops the base's, anything
else (a list, a value) replaces it. An error names the file its key comes from.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from harness.yaml_source import Location, YamlSource, load_yaml

MAX_CHAIN = 8  # suites extending suites: more is a mistake, not a design


def resolve_extends(source: YamlSource, chain: tuple[Path, ...] = ()) -> YamlSource:
    """`source` laid over the suite it extends, positions kept per file; `source` itself when it extends none."""
    data = source.data
    if not isinstance(data, dict) or data.get("extends") is None:
        return source
    target = data["extends"]
    if not isinstance(target, str) or not target.endswith((".yaml", ".yml")):
        raise source.error(("extends",), "extends names a suite file, e.g. 'pcg_scaling.yaml'",
                           hint="Give the base suite's file name, relative to this suite's folder.")
    if "suite" not in data:
        raise source.error(("extends",), "a suite that extends another names itself",
                           hint="Add `suite: <name>`: runs and reports are kept under it, apart from the base's.")
    path = (source.path.parent / target).resolve()
    chain = (*chain, source.path.resolve())
    if path in chain:
        raise source.error(("extends",), f"the suites extend each other in a circle: "
                           f"{' -> '.join(p.name for p in (*chain, path))}", hint="Let one of them extend none.")
    if len(chain) > MAX_CHAIN:
        raise source.error(("extends",), f"more than {MAX_CHAIN} suites extend one another",
                           hint="Extend the base suite directly.")
    if not path.is_file():
        raise source.error(("extends",), f"the base suite {target} does not exist",
                           hint=f"Looked for {path}; name a suite file beside this one.")
    base = resolve_extends(load_yaml(path), chain)
    merged, owned = overlay(base.data, data)
    result = YamlSource(source.path, merged, sources=(*source.sources, *base.sources, base.path))
    for loc, position in base.positions.items():
        if loc and not any(loc[:n] in owned for n in range(1, len(loc) + 1)):
            result.positions[loc] = position
            result.files[loc] = base.files.get(loc, base.path)
    result.positions.update(source.positions)
    return result


def overlay(base: Any, own: Any, loc: Location = ()) -> tuple[Any, set[Location]]:
    """`own` laid over `base` (mappings merge, null drops a key, anything else replaces), and the locations whose
    value `own` set whole."""
    if not (isinstance(base, dict) and isinstance(own, dict)):
        return own, {loc}
    merged, owned = dict(base), set()
    for key, value in own.items():
        if value is None:
            merged.pop(key, None)
            owned.add((*loc, key))
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            merged[key], inner = overlay(base[key], value, (*loc, key))
            owned |= inner
        else:
            merged[key] = value
            owned.add((*loc, key))
    return merged, owned


def suite_document(text: str, read_base: Callable[[str], str], depth: int = 0) -> Any:
    """A suite file's text as data with its base laid under it, the base read by `read_base(name)` (a suite at a
    git ref, say); unreadable text is None."""
    try:
        document = yaml.safe_load(text)
        if isinstance(document, dict) and isinstance(document.get("extends"), str) and depth < MAX_CHAIN:
            return overlay(suite_document(read_base(document["extends"]), read_base, depth + 1), document)[0]
        return document
    except yaml.YAMLError:
        return None
