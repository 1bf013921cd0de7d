"""Reading a dataset's `.npz` archive so that no file can crash or exhaust the machine.

`numpy.load` reads members lazily and trusts each `.npy` header: a corrupt deflate stream
surfaced as a `zlib.error` traceback, and a header declaring a 3.5 PiB array asked the
allocator for 3.5 PiB. Here every member is read at once, its header's size is checked
against the bytes the member can hold before anything is allocated, and every problem
is a `DataError` naming the file and the array.
"""
from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path
from typing import IO

import numpy as np

from harness.errors import DataError

_NPY_MAGIC = b"\x93NUMPY"
_DEFLATE_MAX_RATIO = 1032  # no deflate stream expands more than this (zlib's technical notes)
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
_UNREADABLE = (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error)


def read_npz(path: str | Path, hint: str) -> dict[str, np.ndarray]:
    """Every array of the archive at `path`, by name; `hint` says how a good file is written."""
    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        if _starts_with(path, _NPY_MAGIC):
            raise DataError("holds a single .npy array, not an .npz archive", file=path, hint=hint) from None
        raise DataError(f"is not a readable .npz archive ({exc})", file=path, hint=hint) from None
    with archive:
        return {info.filename.removesuffix(".npy"): _read_member(archive, info, path)
                for info in archive.infolist() if info.filename.endswith(".npy")}


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> np.ndarray:
    name = info.filename.removesuffix(".npy")
    try:
        with archive.open(info) as member:
            declared, header_end = _declared_bytes(member)
        _check_size(declared, info, header_end, path, name)
        with archive.open(info) as member:
            return np.lib.format.read_array(member, allow_pickle=False)
    except _UNREADABLE as exc:
        raise DataError(f"cannot be read ({exc})", file=path, field=name,
                        hint="The archive is damaged or holds object arrays: write it again with "
                             "numpy.savez or numpy.savez_compressed, from plain numeric arrays.") from None


def _declared_bytes(member: IO[bytes]) -> tuple[int, int]:
    """(bytes the header says the array takes, where the header ends)."""
    version = np.lib.format.read_magic(member)
    reader = _HEADER_READERS.get(version)
    if reader is None:
        raise ValueError(f".npy format version {version[0]}.{version[1]} is not supported here")
    shape, _, dtype = reader(member)
    return math.prod(shape) * dtype.itemsize, member.tell()


def _check_size(declared: int, info: zipfile.ZipInfo, header_end: int, path: Path, name: str) -> None:
    held = info.file_size - header_end
    if info.compress_type != zipfile.ZIP_STORED:
        held = min(held, info.compress_size * _DEFLATE_MAX_RATIO)
    if declared > held:
        raise DataError(f"its header declares {_size(declared)} of data but the file holds at most {_size(held)}",
                        file=path, field=name, hint="The file is damaged or truncated: write it again.")


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    value = float(count)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB"):  # noqa: B007 (the unit it stops at is the answer)
        value /= 1024
        if value < 1024:
            break
    return f"{value:.3g} {unit}"


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False
