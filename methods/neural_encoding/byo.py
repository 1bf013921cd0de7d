"""Bring your own test split: a real recording's test trials (e.g. Sensorium or OmniMouse), against which a
model's predictions file (a suite's `predictions:` entry, the task's table) is scored with the family's metrics.

Format: a folder with one `.npz` file per session (sessions in file-name order), each holding
  responses    float (trials, time, neurons)  the recorded responses of the test trials
  movie        int   (trials,)  optional: the test stimulus of each trial; repeats of one stimulus share an id,
               which gives correlation to average and FEVE (every id must appear at least twice)
The responses are the targets of one task column (`column`, default pop_stim: stimulus-driven prediction of
every neuron over the whole trial), at every time bin and neuron: a predictions row's `time` and `unit` index them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import DataError, Instance
from methods.neural_encoding.columns import BY_NAME
from methods.neural_encoding.problem import EncodingInputs, EncodingTruth, Target


@dataclass(frozen=True)
class RecordedTraces:
    column: str
    targets: tuple[Target, ...]

    def instance(self) -> Instance:
        """Nothing to train on and no test view: only a predictions file is scored here."""
        return Instance(EncodingInputs(train=(), test={self.column: ()}), EncodingTruth({self.column: self.targets}))


def _array(archive: np.lib.npyio.NpzFile, field: str, file: Path) -> np.ndarray:
    if field not in archive.files:
        raise DataError(f"no field {field!r} (found: {', '.join(archive.files) or 'none'})", file=file, field=field,
                        hint="Each session file holds the responses (trials, time, neurons).")
    return np.asarray(archive[field])


def read_session(file: Path) -> Target:
    """One session file's targets; a `DataError` names the file and the field at fault."""
    try:
        archive = np.load(file, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot be read as .npz: {exc}", file=file) from None
    with archive:
        responses = _array(archive, "responses", file).astype(np.float64)
        movie = np.asarray(archive["movie"]) if "movie" in archive.files else None
    if responses.ndim != 3 or min(responses.shape) < 1:
        raise DataError(f"responses must be (trials, time, neurons), got shape {responses.shape}", file=file,
                        field="responses")
    if not np.isfinite(responses).all():
        raise DataError("holds NaN or infinite values", file=file, field="responses")
    if movie is not None:
        _check_movie(movie, responses.shape[0], file)
    times, units = np.arange(responses.shape[1]), np.arange(responses.shape[2])
    return Target(responses, times, units, None if movie is None else movie.astype(np.int64))


def _check_movie(movie: np.ndarray, trials: int, file: Path) -> None:
    if movie.shape != (trials,) or not np.issubdtype(movie.dtype, np.integer):
        raise DataError(f"movie must be {trials} integer ids, one per trial, got {movie.dtype} {movie.shape}",
                        file=file, field="movie")
    _, counts = np.unique(movie, return_counts=True)
    if (counts < 2).any():
        raise DataError("every movie id must appear at least twice (repeats give the noise ceiling)", file=file,
                        field="movie")


def load_traces(path: Path, column: str = "pop_stim") -> RecordedTraces:
    """The `traces` loader: a folder of per-session .npz files."""
    path = Path(path)
    if column not in BY_NAME:
        raise DataError(f"unknown column {column!r}; choose one of {', '.join(BY_NAME)}", field="column")
    if not path.is_dir():
        raise DataError("is not a folder of per-session .npz files", file=path)
    files = sorted(path.glob("*.npz"))
    if not files:
        raise DataError("holds no .npz session files", file=path, hint="One file per session: its responses.")
    return RecordedTraces(column, tuple(read_session(file) for file in files))
