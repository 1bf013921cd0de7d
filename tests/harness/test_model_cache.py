"""The trained-model cache: a folder appears whole, and one worker trains a model while the others wait."""
import fcntl
import threading

from harness.model_cache import publish, training_lock


def test_publish_renames_a_complete_folder_and_keeps_the_first_on_a_race(tmp_path):
    root = tmp_path / "model"
    publish(root, lambda staging: (staging / "weights").write_text("first"))
    publish(root, lambda staging: (staging / "weights").write_text("second"))
    assert (root / "weights").read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no staging folder left behind


def test_training_lock_is_exclusive_until_released(tmp_path):
    root = tmp_path / "model"
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        with training_lock(root):
            entered.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    entered.wait(5)
    with open(tmp_path / ".model.lock", "w") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked_out = False
        except BlockingIOError:
            locked_out = True
        release.set()
        holder.join()
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free once the holder has left
    assert locked_out


def test_a_recipe_names_its_training_threads_and_refuses_a_bad_count():
    from dataclasses import dataclass

    import pytest

    from harness import DataError
    from harness.model_cache import recipe_digest

    @dataclass(frozen=True)
    class Config:
        width: int = 8

    assert recipe_digest(Config(), 0, 1) != recipe_digest(Config(), 0, 2)
    for bad in (0, 1.5, True, None):
        with pytest.raises(DataError, match="num_threads"):
            recipe_digest(Config(), 0, bad)


def test_a_recipe_folder_is_the_models_name_and_its_recipe_digest_under_the_cache_root(tmp_path, monkeypatch):
    """Every family's cached models keep the folder names they had before the name was built here once."""
    from dataclasses import dataclass

    from harness.model_cache import CACHE_ENV, recipe_digest, recipe_folder

    @dataclass(frozen=True)
    class Config:
        width: int = 8

    expected = tmp_path / f"zo-tiny-llama-{recipe_digest(Config(), 3, 2)}"
    assert recipe_folder("zo-tiny-llama", Config(), 3, 2, tmp_path) == expected
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "env"))
    assert recipe_folder("modular-base", Config(), 0, 1).parent == tmp_path / "env"


def test_training_threads_restores_the_callers_thread_count():
    import pytest

    torch = pytest.importorskip("torch")
    from harness.model_cache import training_threads

    before = torch.get_num_threads()
    with training_threads(before + 1):
        assert torch.get_num_threads() == before + 1
    assert torch.get_num_threads() == before


class _Saved:
    """A stand-in for a model or tokenizer: `save_pretrained` writes one file."""

    def __init__(self, name: str) -> None:
        self.name = name

    def save_pretrained(self, folder) -> None:  # noqa: ANN001
        (folder / self.name).write_text(self.name)


def test_cached_model_trains_once_while_racing_workers_wait_and_then_reuses_the_folder(tmp_path):
    import json
    import time

    import pytest

    pytest.importorskip("torch")
    from harness.model_cache import cached_model

    root, calls = tmp_path / "models" / "tiny", []

    def train():  # noqa: ANN202
        calls.append(threading.get_ident())
        time.sleep(0.3)  # long enough for every other worker to reach the lock
        return _Saved("weights"), _Saved("tokenizer"), {"final_loss": 1.5}

    workers = [threading.Thread(target=cached_model, args=(root, 1, train)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(calls) == 1
    assert json.loads((root / "training.json").read_text()) == {"final_loss": 1.5}
    assert (root / "weights").read_text() == "weights" and (root / "tokenizer").is_file()
    assert cached_model(root, 1, train) == root and len(calls) == 1
