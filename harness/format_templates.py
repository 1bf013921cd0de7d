"""Format templates in suite files (report cells, predictions paths), checked when the suite loads.

`str.format` lets a template index or read attributes (`{mean[0]}`, `{seed.real}`) and only fails
when a report or a plan fills it in, as a traceback; checking the parsed fields against the names
the caller supplies makes every such mistake a validation error instead.
"""
from __future__ import annotations

import re
import string
from typing import Any

_LONG_NUMBER = re.compile(r"\d{3,}")  # a width or precision over 99 is a typo that builds huge strings


def check_template(template: str, sample: dict[str, Any]) -> None:
    """Raise ValueError unless `template` uses only plain `{name}` fields of `sample`, in formats they take."""
    names = ", ".join(sample)
    try:
        fields = [(name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        raise ValueError(f"{template!r} is not a format template ({exc}); write fields as {{name}}") from None
    for name, spec in ((name, spec or "") for name, spec in fields):
        if name not in sample:
            raise ValueError(f"{template!r} uses the field {{{name}}}; use only {names}, "
                             "with no indexing or attributes")
        if "{" in spec or _LONG_NUMBER.search(spec):
            raise ValueError(f"{template!r} gives {{{name}}} the format '{spec}'; write a plain one such as '.2f'")
    try:
        template.format(**sample)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{template!r} cannot be filled in ({exc})") from None
