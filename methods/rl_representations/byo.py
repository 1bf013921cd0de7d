"""Bring your own training logs: stable-baselines3 `Monitor` files (`<seed>.monitor.csv`, one per seed, in one
folder: a `#{json}` first line, then `r,l,t` per finished episode: return, length, seconds since the start),
read by the loader `monitor_logs` and replayed by the method `logged` as the same checkpoints an agent run gives,
so your own agents' runs get the same return curves, AUC, IQM and claims. The representation diagnostics are not
in such logs (NaN). A malformed file stops the suite before any run with `file:line: column: problem`."""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import DataError, Instance, Method, RunContext
from methods.rl_representations.checkpoints import RETURN_WINDOW, Checkpoints
from methods.rl_representations.task import ControlTask

COLUMNS = ("r", "l", "t")


@dataclass(frozen=True)
class Episodes:
    returns: np.ndarray
    lengths: np.ndarray
    seconds: np.ndarray


@dataclass(frozen=True)
class LoggedRuns:
    """Each seed's episodes, and the checkpoint interval to replay them at."""

    name: str
    runs: dict[int, Episodes]
    every: int


def read_monitor(path: Path) -> Episodes:
    """One Monitor file's episodes; a `DataError` naming the file, line and column of the first problem."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("#"):
        raise DataError("is not a Monitor file: its first line must be the '#{...}' header", file=path, line=1)
    rows = list(csv.reader(lines[1:]))
    if not rows or [name.strip() for name in rows[0][:3]] != list(COLUMNS):
        raise DataError("the second line must name the columns r,l,t", file=path, line=2)
    values: dict[str, list[float]] = {name: [] for name in COLUMNS}
    for offset, row in enumerate(rows[1:]):
        for index, name in enumerate(COLUMNS):
            try:
                value = float(row[index])
            except (IndexError, ValueError):
                raise DataError(f"{row[index] if index < len(row) else 'nothing'!r} is not a number", file=path,
                                line=offset + 3, field=name) from None
            if not math.isfinite(value) or (name == "l" and (value < 1 or value != int(value))):
                wanted = "positive whole episode length" if name == "l" else "finite number"
                raise DataError(f"{value!r} is not a {wanted}", file=path, line=offset + 3, field=name)
            values[name].append(value)
    if not values["r"]:
        raise DataError("holds no finished episode", file=path)
    return Episodes(*(np.asarray(values[name]) for name in COLUMNS))


def load_monitor_logs(path: str, every: int = 1_000) -> LoggedRuns:
    """The folder `path`'s `<seed>.monitor.csv` files (SB3's `Monitor(env, filename=f"{folder}/{seed}")`)."""
    folder = Path(path)
    files = sorted(folder.glob("*.monitor.csv"))
    if not folder.is_dir() or not files:
        raise DataError("holds no <seed>.monitor.csv file", file=folder, hint="Write them with SB3's Monitor.")
    runs = {}
    for file in files:
        seed = file.name.removesuffix(".monitor.csv")
        if not seed.isdigit():
            raise DataError("a Monitor file here is named <seed>.monitor.csv, the seed a whole number", file=file)
        runs[int(seed)] = read_monitor(file)
    if every < 1:
        raise DataError("every must be >= 1", field="every")
    return LoggedRuns(folder.name, runs, every)


def replayed(episodes: Episodes, every: int) -> Checkpoints:
    """Every `every` steps up to the last finished episode: the mean return of the last 10 episodes finished by
    then (the first episode's before any has), and the seconds of the last one."""
    ends = np.cumsum(episodes.lengths)
    out = Checkpoints()
    for step in range(every, int(ends[-1]) + 1, every):
        done = int(np.searchsorted(ends, step, side="right"))
        recent = episodes.returns[max(0, done - RETURN_WINDOW):max(done, 1)]
        out.add(step=step, **{"return": float(recent.mean())}, seconds=float(episodes.seconds[max(done, 1) - 1]),
                dormant_actor=math.nan, dormant_critic=math.nan, srank_actor=math.nan, srank_critic=math.nan)
    return out


class ReplayTask(ControlTask):
    """The contract `rl_representations.replay`: `rl_representations.control` on logged runs (a `monitor_logs`
    dataset) instead of an environment; the same predictions table and metrics."""

    def tiny_instance(self, seed: int) -> Instance:
        """Twenty generated 50-step episodes of rising return, replayed every 100 steps."""
        episodes = Episodes(np.linspace(-100.0, 0.0, 20), np.full(20, 50.0), np.arange(1.0, 21.0))
        return self.instance(LoggedRuns("tiny", {seed: episodes}, 100), {}, seed)


class LoggedAgent(Method):
    """Replays the seed's Monitor log (recorded, so deterministic); a seed without a log is an error."""

    def run(self, inputs: LoggedRuns, ctx: RunContext) -> Checkpoints:
        if not isinstance(inputs, LoggedRuns):
            raise ValueError("the logged method replays a monitor_logs dataset; an environment needs an agent")
        if ctx.seed not in inputs.runs:
            raise ValueError(f"no {ctx.seed}.monitor.csv in {inputs.name} (seeds: {sorted(inputs.runs)})")
        checkpoints = replayed(inputs.runs[ctx.seed], inputs.every)
        if not checkpoints.columns:
            raise ValueError(f"seed {ctx.seed}'s log is shorter than one checkpoint ({inputs.every} steps)")
        ctx.record_curve("return", checkpoints.columns["step"], checkpoints.columns["return"], higher_is_better=True)
        return checkpoints
