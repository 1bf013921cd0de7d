"""A dataset's .npz archive, damaged or lying about its size, is a DataError naming the file and the array:
never a zlib traceback, never a request for petabytes."""
from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import pytest

from harness import DataError
from harness.array_files import read_npz
from methods.graph_anomaly.data import load_npz

PIB = 2**50


def _damaged_compressed_archive(tmp_path):
    """An archive whose `x` member's deflate stream cannot be decompressed (not merely a bad checksum)."""
    path = tmp_path / "graph.npz"
    np.savez_compressed(path, x=np.random.default_rng(0).normal(size=(200, 8)), edge_index=np.zeros((2, 3)),
                        y=np.zeros(200))
    data = bytearray(path.read_bytes())
    offset = zipfile.ZipFile(path).getinfo("x.npy").header_offset
    name_length, extra_length = struct.unpack("<HH", data[offset + 26:offset + 30])  # the local file header's
    stream = offset + 30 + name_length + extra_length
    data[stream + 50:stream + 66] = b"\xff" * 16  # zlib: "invalid bit length repeat"
    path.write_bytes(data)
    return path


def test_a_damaged_compressed_member_names_the_file_and_the_array(tmp_path):
    path = _damaged_compressed_archive(tmp_path)
    with pytest.raises(DataError, match="cannot be read") as caught:
        read_npz(path, hint="write it again")
    assert caught.value.file == path and caught.value.field == "x"


def _archive_declaring(tmp_path, nbytes: int, compression: int):
    """An archive whose `x.npy` header declares `nbytes` of float64 but holds 16 bytes."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (nbytes // 8,)})
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        archive.writestr("x.npy", header.getvalue() + bytes(16))
    return path


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_header_declaring_petabytes_is_refused_before_anything_is_allocated(tmp_path, compression):
    path = _archive_declaring(tmp_path, int(3.5 * PIB), compression)
    with pytest.raises(DataError, match=r"declares 3.5 PiB of data but the file holds at most") as caught:
        read_npz(path, hint="write it again")
    assert caught.value.file == path and caught.value.field == "x"


def test_the_graph_loader_reports_a_damaged_archive_as_a_data_error(tmp_path):
    path = _damaged_compressed_archive(tmp_path)
    with pytest.raises(DataError) as caught:
        load_npz(path)
    assert caught.value.file == path and caught.value.field == "x" and "numpy.savez" in caught.value.hint


def test_good_archives_read_back_exactly_compressed_or_not(tmp_path):
    arrays = {"x": np.arange(12.0).reshape(3, 4), "name": np.array("reddit"), "big": np.zeros((64, 64))}
    for save in (np.savez, np.savez_compressed):
        path = tmp_path / f"{save.__name__}.npz"
        save(path, **arrays)
        read = read_npz(path, hint="")
        assert read.keys() == arrays.keys() and all(np.array_equal(read[k], arrays[k]) for k in arrays)
