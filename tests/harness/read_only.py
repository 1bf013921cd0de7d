"""Making a folder unwritable for a test, whoever runs it: by permissions, or for root (whom permissions do not
stop) by the immutable attribute; skips where neither is possible."""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` and the files in it unwritable while the block runs."""
    paths = [*folder.iterdir(), folder]
    if os.geteuid() != 0:
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            for path in paths:
                path.chmod(0o755 if path.is_dir() else 0o644)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", *map(str, paths)]).returncode != 0:
        pytest.skip("running as root without chattr +i: nothing can make the folder read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], check=True)
