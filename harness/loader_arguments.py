"""Checks of a dataset loader's arguments, each failure a `DataError` naming the argument's field."""
from __future__ import annotations

from typing import Any

from harness.errors import DataError


def whole_number(value: Any, field: str, minimum: int = 1) -> int:
    """`value` if it is an integer >= `minimum` (a bool is not), else a `DataError` at `field` (`args.budget`)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        name = field.rsplit(".", 1)[-1]
        raise DataError(f"{name} must be an integer >= {minimum}, got {value!r}", field=field)
    return value
