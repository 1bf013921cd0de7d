"""Safe YAML loading that remembers where every key and value sits in the file.

PyYAML's `safe_load` forgets positions and silently keeps the last of two equal keys;
composing the node tree first gives us both the line of each field (for error
messages) and a refusal of duplicate keys (e.g. two methods with one name).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.errors import SuiteError

Location = tuple[Any, ...]


@dataclass
class YamlSource:
    """A parsed YAML document plus the (line, column) of each path into it, 1-based."""

    path: Path
    data: Any
    positions: dict[Location, tuple[int, int]] = field(default_factory=dict)

    def position(self, loc: Location) -> tuple[int | None, int | None]:
        """The closest known position of `loc`, walking up to its parents."""
        loc = tuple(loc)
        while loc:
            if loc in self.positions:
                return self.positions[loc]
            loc = loc[:-1]
        return self.positions.get((), (None, None))

    def error(self, loc: Location, message: str, hint: str | None = None) -> SuiteError:
        line, column = self.position(loc)
        dotted = ".".join(str(p) for p in loc) or None
        return SuiteError(message, file=self.path, line=line, column=column, field=dotted, hint=hint)


def load_yaml(path: str | Path) -> YamlSource:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError("suite file does not exist", file=path, hint="Check the path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"cannot read the suite file ({exc})", file=path) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise SuiteError(
            f"malformed YAML: {problem}",
            file=path,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            hint="Check the indentation and quoting around this position.",
        ) from None
    source = YamlSource(path, None)
    if node is None:
        return source
    source.positions[()] = (node.start_mark.line + 1, node.start_mark.column + 1)
    _record_positions(node, (), source)
    source.data = yaml.safe_load(text)
    return source


def _record_positions(node: yaml.Node, loc: Location, source: YamlSource) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value
            child = loc + (key,)
            if key in seen:
                line = key_node.start_mark.line + 1
                raise SuiteError(
                    f"'{key}' appears twice in the same block", file=source.path, line=line,
                    column=key_node.start_mark.column + 1, field=".".join(map(str, child)),
                    hint="Give each entry a unique name.",
                )
            seen.add(key)
            source.positions[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            _record_positions(value_node, child, source)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = loc + (index,)
            source.positions[child] = (item.start_mark.line + 1, item.start_mark.column + 1)
            _record_positions(item, child, source)
