"""Wall-time gating within one job: a base commit's and the candidate's pytest-benchmark tests, timed in turns.

Load on a shared machine moves every timing (x3.6 on the engine benchmarks here), and a baseline file from another
job or machine compares two loads as much as two codes. Timed in alternation within one job, base and candidate
share the load, whatever it is: each round runs pytest-benchmark once on each side, in alternating order, and
keeps each benchmark's minimum (the call least disturbed). After at least `MIN_ROUNDS` rounds a benchmark has
*regressed* when the candidate's round minima are larger by a one-sided Mann-Whitney test at p < `ALPHA` and the
smallest minimum of each side differ by more than `MAX_RATIO` (improved: the mirror image). With 7 rounds a side,
p < 0.002 needs the sides all but separated (the smallest p is 1/3432).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from harness.errors import HarnessError

MIN_ROUNDS = 7
ALPHA = 0.002
MAX_RATIO = 1.10
Verdict = Literal["regressed", "improved", "unchanged", "missing", "new"]


@dataclass(frozen=True)
class AlternatedTiming:
    """One benchmark's round minima (seconds per call) on each side; empty on a side that lacks it."""

    fullname: str
    base: tuple[float, ...]
    head: tuple[float, ...]

    @property
    def ratio(self) -> float:
        """The candidate's best round over the base's: what the candidate costs when nothing disturbs it."""
        return min(self.head) / min(self.base)

    def p_value(self, slower: bool) -> float:
        """One-sided Mann-Whitney p that the candidate's rounds are slower (faster) than the base's."""
        from scipy.stats import mannwhitneyu

        return float(mannwhitneyu(self.head, self.base, alternative="greater" if slower else "less").pvalue)

    @property
    def verdict(self) -> Verdict:
        if not self.head:
            return "missing"
        if not self.base:
            return "new"
        if self.ratio > MAX_RATIO and self.p_value(slower=True) < ALPHA:
            return "regressed"
        if self.ratio < 1 / MAX_RATIO and self.p_value(slower=False) < ALPHA:
            return "improved"
        return "unchanged"

    def line(self) -> str:
        if not (self.base and self.head):
            return f"{self.verdict:<10} {self.fullname}"
        slower = self.ratio >= 1
        return (f"{self.verdict:<10} {self.fullname}: x{self.ratio:.3f} (best round {_shown(min(self.base))} -> "
                f"{_shown(min(self.head))}; Mann-Whitney p = {self.p_value(slower):.2g} that it got "
                f"{'slower' if slower else 'faster'}, {len(self.base)} rounds a side)")


def _shown(seconds: float) -> str:
    return f"{seconds:.3g} s" if seconds >= 1 else f"{seconds * 1e3:.3g} ms"


def alternate(base_ref: str, pytest_args: list[str], repo: Path, rounds: int = MIN_ROUNDS) -> list[AlternatedTiming]:
    """Time the selected benchmarks `rounds` times on `base_ref` (checked out apart) and on the working tree."""
    if rounds < MIN_ROUNDS:
        raise HarnessError(f"{rounds} rounds cannot separate base from candidate at p < {ALPHA}",
                           field="--rounds", hint=f"Give at least {MIN_ROUNDS}.")
    base: dict[str, list[float]] = {}
    head: dict[str, list[float]] = {}
    with checkout(base_ref, repo) as base_tree, tempfile.TemporaryDirectory(prefix="harness-wall-") as scratch:
        for round_ in range(rounds):
            sides = [(base_tree, base), (repo, head)]
            for tree, minima in sides if round_ % 2 == 0 else sides[::-1]:
                for name, minimum in round_minima(tree, pytest_args, Path(scratch) / "round.json").items():
                    minima.setdefault(name, []).append(minimum)
    return [AlternatedTiming(name, tuple(base.get(name, ())), tuple(head.get(name, ())))
            for name in sorted(base.keys() | head.keys())]


def round_minima(tree: Path, pytest_args: list[str], out: Path) -> dict[str, float]:
    """One pytest-benchmark run of the selected benchmarks in `tree`: each one's fastest call, in seconds."""
    command = [sys.executable, "-m", "pytest", *pytest_args, "--benchmark-only", f"--benchmark-json={out}", "-q",
               "-p", "no:cacheprovider"]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise HarnessError(f"the benchmarks failed in {tree} (pytest exit {done.returncode}):\n{done.stdout[-2000:]}",
                           hint="Run them with pytest there to see why.")
    return {b["fullname"]: float(b["stats"]["min"]) for b in json.loads(out.read_text())["benchmarks"]}


@contextmanager
def checkout(ref: str, repo: Path) -> Iterator[Path]:
    """`ref` of the repository at `repo`, checked out in a temporary worktree, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="harness-base-") as parent:
        tree = Path(parent) / "base"
        added = subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(tree), ref],
                               capture_output=True, text=True)
        if added.returncode != 0:
            raise HarnessError(f"cannot check out {ref!r}: {added.stderr.strip()}", field="--base",
                               hint="Give a commit, branch or tag of this repository (a shallow clone may lack it).")
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)], capture_output=True)
