"""A local worker's processes as its coordinator and the worker itself see them: how much memory the
tree holds, killing all of it, and the worker's promise to die with its coordinator."""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

import psutil

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []  # it has already ended


def resident_mb(pid: int) -> float:
    """Resident memory of `pid` and its descendants, in MB: a method's own subprocesses (data loaders,
    compilers) count against its run's `resources.mem`, as they do under Slurm's cgroups."""
    total = 0
    for process in _tree(pid):
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass  # it ended between the listing and the reading
    return total / 2**20


def kill_tree(pid: int) -> None:
    """SIGKILL `pid` and its descendants, listed first so none is orphaned by its parent's death."""
    for process in _tree(pid):
        try:
            process.kill()
        except psutil.Error:
            pass


def die_with_parent(parent: int) -> None:
    """Make this process end, silently, when its coordinator `parent` dies (even by SIGKILL), so an
    orphaned worker neither runs on nor prints. Linux delivers SIGKILL through PR_SET_PDEATHSIG;
    elsewhere a daemon thread notices the reparenting within a second."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    else:
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the coordinator died before the request took effect
        os._exit(1)


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)
