"""Names that become file names. A method, metric or parameter name comes from a suite file and may hold
`/`, `..` or characters a file system refuses; written unchanged into a path, `x/../../ESCAPED` once put
a report's plot outside its output folder."""
from __future__ import annotations

import hashlib
import re

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.=+-]*")
_NOT_PLAIN = re.compile(r"[^A-Za-z0-9_.=+-]+")
_LONGEST = 120  # well under the 255 bytes most file systems allow, leaving room for a suffix


def file_safe(name: str) -> str:
    """`name` itself when it is a plain file name already (so existing files keep their names); otherwise
    its plain characters followed by a short hash of the whole name, so two names never share a file."""
    if _PLAIN.fullmatch(name) and len(name) <= _LONGEST:
        return name
    plain = _NOT_PLAIN.sub("_", name).strip("._-")[: _LONGEST - 9] or "name"
    return f"{plain}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
