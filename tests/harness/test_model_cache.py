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


def test_training_threads_restores_the_callers_thread_count():
    import pytest

    torch = pytest.importorskip("torch")
    from harness.model_cache import training_threads

    before = torch.get_num_threads()
    with training_threads(before + 1):
        assert torch.get_num_threads() == before + 1
    assert torch.get_num_threads() == before
