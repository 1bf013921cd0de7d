"""User-facing errors: each carries where the mistake is and how to fix it.

They are caught once, at the CLI edge, printed as one paragraph and turned into exit code 3.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

USER_ERROR_EXIT = 3


@dataclass
class HarnessError(Exception):
    """A mistake in the user's input: never shown with a traceback."""

    message: str
    file: str | Path | None = None
    line: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        field = f"{self.field}: " if self.field else ""
        stop = "" if self.message.endswith((".", "?", "!")) else "."
        hint = f" {self.hint}" if self.hint else ""
        return f"{where}{field}{self.message}{stop}{hint}"


class SuiteError(HarnessError):
    """The suite file is malformed, or names something that is not registered."""


class RegistryError(HarnessError):
    """A name is unknown or registered twice."""


class DataError(HarnessError):
    """A dataset file is missing or its content does not match the expected schema."""


class MissingExtraError(HarnessError):
    """A family the suite uses needs a pip extra that is not installed here."""


class StoreError(HarnessError):
    """The results store cannot be opened or is not a harness database."""
