"""Safe YAML loading that remembers where every key and value sits in the file.

PyYAML's `safe_load` forgets positions and silently keeps the last of two equal keys;
composing the node tree first gives us both the line of each field (for error
messages) and a refusal of duplicate keys (e.g. two methods with one name).

A suite is plain data, so before anything is built the event stream is checked for what
would exhaust the stack or memory, or run constructors a suite never needs: explicit tags
(`!!python/...`, `!foo`, `!!binary`), nesting deeper than `MAX_DEPTH`, an alias inside the
block it names (a cycle), and aliases that expand the file far past its own size (a
"billion laughs": 342 bytes that would build 1.5 GB). Text that UTF-8 cannot encode (a lone
surrogate, "\\ud800") is refused too: a name holding one failed later, in the store or a file name.
The file itself must be a regular file under `harness.limits.max_suite_bytes` (parsing is linear
but slow: 1 MiB of method entries takes about 7 s).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.errors import SuiteError
from harness.limits import MAX_SUITE_BYTES_ENV, max_suite_bytes
from harness.regular_files import FileTooLarge, NotAPlainFile, read_plain_file

Location = tuple[Any, ...]

MAX_DEPTH = 64              # suites nest 5 or 6 levels; the composer recurses per level
ALIAS_BUDGET = 100_000      # values + characters aliases may add beyond the file's own size


@dataclass
class YamlSource:
    """A parsed YAML document plus the (line, column) of each path into it, 1-based."""

    path: Path
    data: Any
    positions: dict[Location, tuple[int, int]] = field(default_factory=dict)
    files: dict[Location, Path] = field(default_factory=dict)  # positions in another file: a suite's base
    sources: tuple[Path, ...] = ()  # the base files laid under this one (`harness.suite_extends`)

    def position(self, loc: Location) -> tuple[int | None, int | None]:
        """The closest known position of `loc`, walking up to its parents."""
        return self.positions.get(self._known(loc), (None, None))

    def file(self, loc: Location) -> Path:
        """The file the closest known position of `loc` is in."""
        return self.files.get(self._known(loc), self.path)

    def _known(self, loc: Location) -> Location:
        loc = tuple(loc)
        while loc and loc not in self.positions:
            loc = loc[:-1]
        return loc

    def error(self, loc: Location, message: str, hint: str | None = None) -> SuiteError:
        line, column = self.position(loc)
        dotted = ".".join(str(p) for p in loc) or None
        return SuiteError(message, file=self.file(loc), line=line, column=column, field=dotted, hint=hint)


def load_yaml(path: str | Path) -> YamlSource:
    path = Path(path)
    text = _suite_text(path)
    try:
        _check_events(text, path)
        loader = _SuiteLoader(text)
        try:
            node = loader.get_single_node()
            source = YamlSource(path, None)
            if node is not None:
                source.positions[()] = (node.start_mark.line + 1, node.start_mark.column + 1)
                _record_positions(node, (), source)
                source.data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise SuiteError(
            f"malformed YAML: {problem}",
            file=path,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            hint="Quote the value if it is meant as text." if isinstance(exc, yaml.constructor.ConstructorError)
            else "Check the indentation and quoting around this position.",
        ) from None
    return source


def _suite_text(path: Path) -> str:
    """The suite file's text: a regular file (a link to one is fine) within the size cap, in UTF-8."""
    limit = max_suite_bytes()
    try:
        return read_plain_file(path, limit, follow_symlinks=True).decode("utf-8")
    except FileNotFoundError:
        raise SuiteError("suite file does not exist", file=path, hint="Check the path.") from None
    except FileTooLarge as exc:
        raise SuiteError(f"the suite file is too large to read: {exc}", file=path,
                         hint=f"Suites are a few KB; split this one (`extends:` shares a base), or raise the cap "
                              f"with {MAX_SUITE_BYTES_ENV}=<bytes> if you mean it.") from None
    except NotAPlainFile as exc:
        raise SuiteError(f"cannot read the suite file: {exc}", file=path, hint="Give a suite file's path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"cannot read the suite file ({exc})", file=path) from None


class _SuiteLoader(yaml.SafeLoader):
    """The safe loader, with a value it cannot build (a date like 2020-13-45, an integer of 5,000 digits)
    reported at its position instead of escaping as a bare ValueError."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, TypeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(None, None, f"cannot read this value ({exc})",
                                                    node.start_mark) from None


def _check_events(text: str, path: Path) -> None:
    """Refuse tags, deep nesting, cyclic aliases and alias blow-up while streaming events, before any node
    exists. A value weighs 1 plus its length; an alias weighs what its anchor expanded to."""
    weights: dict[str, int] = {}
    open_blocks: list[tuple[str | None, int]] = []      # (anchor, expanded weight before this block)
    total = 0
    limit = len(text) + ALIAS_BUDGET
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            if any(anchor == event.anchor for anchor, _ in open_blocks):
                raise _refusal(path, event, f"alias '*{event.anchor}' lies inside the block it names, a cycle",
                               "Point the alias at a block that does not contain it.")
            total += weights.get(event.anchor, 1)  # an undefined alias is reported by the composer
        elif isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
            if event.tag is not None:
                tag = event.tag.replace("tag:yaml.org,2002:", "!!")
                raise _refusal(path, event, f"YAML tag '{tag}' is not allowed in a suite file",
                               "Suites are plain data: remove the tag, and quote the value if it must be text.")
            if isinstance(event, yaml.ScalarEvent):
                _check_encodable(event, path)
                total += 1 + len(event.value)
                if event.anchor is not None:
                    weights[event.anchor] = 1 + len(event.value)
                continue
            if len(open_blocks) >= MAX_DEPTH:
                raise _refusal(path, event, f"blocks nest deeper than {MAX_DEPTH} levels",
                               "Flatten the structure; a suite needs a few levels.")
            open_blocks.append((event.anchor, total))
            total += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, before = open_blocks.pop()
            if anchor is not None:
                weights[anchor] = total - before
        if total > limit:
            raise _refusal(path, event, f"anchors and aliases expand this file past {limit:,} values and "
                           "characters (a 'billion laughs')", "Alias only small blocks, and not aliases of aliases.")


def _check_encodable(event: yaml.ScalarEvent, path: Path) -> None:
    """A scalar UTF-8 can encode: YAML's "\\ud800" escape builds a lone surrogate, which no file, name or store
    column can hold."""
    if event.value.isascii():
        return
    try:
        event.value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _refusal(path, event, f"the text holds the lone surrogate \\u{ord(event.value[exc.start]):04x}, "
                       "which cannot be written as UTF-8", "Write the character itself (the file is UTF-8), or "
                       "\\U0001F600 style escapes for one beyond \\uFFFF, not a pair of \\u escapes.") from None


def _refusal(path: Path, item: yaml.Event | yaml.Node, message: str, hint: str) -> SuiteError:
    mark = item.start_mark
    return SuiteError(message, file=path, line=mark.line + 1, column=mark.column + 1, hint=hint)


def _record_positions(node: yaml.Node, loc: Location, source: YamlSource) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _refusal(source.path, key_node, "a key must be a name or a number, not a list or a mapping",
                               "Write the key as plain text.")
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
