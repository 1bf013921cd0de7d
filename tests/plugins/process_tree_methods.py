"""Toy methods whose processes try to outlive or out-grow their run, for the local executor's process-tree tests.

Loaded beside `toy_family.py` (`--plugin` twice): they solve its `toy.sign` task, under the `trees.` names.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness import Method, MethodParams, methods

# A child that makes `mb` megabytes resident at kernel speed (MAP_POPULATE), holds them briefly, and exits.
_SPIKE = ("import mmap, sys, time; block = mmap.mmap(-1, int(sys.argv[1]) * 2**20, "
          "flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE); time.sleep(float(sys.argv[2]))")
_SLEEP = "import time; time.sleep(600)"


class SpikeParams(MethodParams):
    mb: int = 400
    hold_s: float = 0.05


class SubprocessSpike(Method):
    """Runs a subprocess whose memory spikes to `mb` for about `hold_s`, well inside one memory poll."""

    params_model = SpikeParams

    def run(self, inputs, ctx):
        subprocess.run([sys.executable, "-S", "-c", _SPIKE, str(self.params.mb), str(self.params.hold_s)], check=True)
        return inputs


class SpawnParams(MethodParams):
    pid_file: str
    hang: bool = False


class SpawnAndDaemonize(Method):
    """Starts a sleeping subprocess and a double-forked sleeping daemon (fork, fork, the middle one exits; no
    setsid), writes both pids to `pid_file`, then returns, or hangs when `hang`."""

    params_model = SpawnParams

    def run(self, inputs, ctx):
        child = subprocess.Popen([sys.executable, "-S", "-c", _SLEEP])
        pids = [child.pid, _double_forked_sleeper()]
        staged = Path(f"{self.params.pid_file}.tmp")
        staged.write_text("\n".join(map(str, pids)))
        staged.rename(self.params.pid_file)
        if self.params.hang:
            time.sleep(3600)
        return inputs


def _double_forked_sleeper() -> int:
    """The pid of a sleeper whose parent exited at once, so it is nobody's child in the run's tree."""
    read_end, write_end = os.pipe()
    middle = os.fork()
    if middle == 0:
        sleeper = os.fork()
        if sleeper == 0:
            os.execv(sys.executable, [sys.executable, "-S", "-c", _SLEEP])
        os.write(write_end, str(sleeper).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        sleeper = int(pipe.read())
    os.waitpid(middle, 0)
    return sleeper


methods.add("trees.spike", SubprocessSpike, "toy method whose subprocess's memory spikes briefly", task="toy.sign")
methods.add("trees.spawn", SpawnAndDaemonize, "toy method that leaves a subprocess and a daemon behind",
            task="toy.sign")


class LastWords(Method):
    """Writes a line straight to its stderr, unbuffered as C code writes, then dies of a segfault at once."""

    def run(self, inputs, ctx):
        os.write(2, b"last words before the crash\n")
        os.kill(os.getpid(), signal.SIGSEGV)


methods.add("trees.last_words", LastWords, "toy method that writes a line and segfaults", task="toy.sign")
