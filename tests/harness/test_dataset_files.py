"""File arguments of loaders: resolved under the data root, their content in the fingerprint."""
from __future__ import annotations

import pytest

from harness import DataError
from harness.dataset_files import resolve_dataset


def _fingerprint(root, path: str) -> str:
    return resolve_dataset("d", "family.loader", {"path": path}, {}, root).fingerprint


def test_a_folder_argument_is_fingerprinted_by_every_file_in_it(tmp_path):
    folder = tmp_path / "DS"
    folder.mkdir()
    (folder / "DS_A.txt").write_text("1, 2\n")
    (folder / "DS_graph_labels.txt").write_text("1\n")
    first = _fingerprint(tmp_path, "DS")
    assert resolve_dataset("d", "family.loader", {"path": "DS"}, {}, tmp_path).load_args["path"] == str(folder)
    (folder / "DS_graph_labels.txt").write_text("2\n")
    second = _fingerprint(tmp_path, "DS")
    (folder / "DS_node_labels.txt").write_text("1\n")
    third = _fingerprint(tmp_path, "DS")
    assert len({first, second, third}) == 3


def test_moving_the_data_root_keeps_the_fingerprint(tmp_path):
    for root in ("a", "b"):
        (tmp_path / root / "DS").mkdir(parents=True)
        (tmp_path / root / "DS" / "f.txt").write_text("same\n")
    assert _fingerprint(tmp_path / "a", "DS") == _fingerprint(tmp_path / "b", "DS")


def test_a_missing_path_names_where_it_was_expected(tmp_path):
    with pytest.raises(DataError, match="file 'nowhere' not found") as error:
        _fingerprint(tmp_path, "nowhere")
    assert error.value.field == "datasets.d.args.path"
