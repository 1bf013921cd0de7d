"""A local worker's processes as its coordinator and the worker itself see them: how much memory the
tree holds, killing all of it, and the promises that make a run's processes end with their run and a worker's
with its coordinator.

A worker leads its own process group, which the processes its runs start join unless they leave it (setsid),
and on Linux it is their subreaper, so a double-forked daemon is still its child: killing the worker's tree and
group, and a worker killing its children when a run ends, leaves nothing running. A coordinator SIGKILLed takes
its workers with it (PR_SET_PDEATHSIG), and each worker's keeper, a shell waiting on a pipe from the coordinator,
kills what was left in the worker's group when the kernel closes that pipe.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

import psutil

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_PR_SET_CHILD_SUBREAPER = 36


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
    _kill(_tree(pid))


def kill_group(pgid: int) -> None:
    """SIGKILL process group `pgid`, if it is still there: what a dead worker's runs left behind."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(processes: list[psutil.Process]) -> None:
    for process in processes:
        try:
            process.kill()
        except psutil.Error:
            pass


def group_keeper(pgid: int) -> subprocess.Popen:
    """A shell (about 1 MB, started in a millisecond) that SIGKILLs process group `pgid` once its stdin, a pipe
    from this process, closes: when this coordinator dies, however it dies."""
    return subprocess.Popen(["/bin/sh", "-c", 'read line; kill -s KILL -- "-$0" 2>/dev/null', str(pgid)],
                            stdin=subprocess.PIPE, start_new_session=True)  # its own session: no Ctrl-C kills it


def lead_own_group() -> None:
    """Make this worker the leader of a process group of its own, which its runs' processes join, and on Linux
    the subreaper of its descendants, so that a double-forked daemon's parent, once gone, is this worker."""
    os.setpgid(0, 0)
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def end_children() -> None:
    """SIGKILL and reap every child of this worker, the orphans it adopted as their subreaper included, until none
    is left: a worker's only children are its run's, which end with the run. A single wait when there are none."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:  # one still runs
                _kill(_tree(os.getpid())[1:])
                os.waitpid(-1, 0)
        except ChildProcessError:
            return


def die_with_parent(parent: int) -> None:
    """Make this process end, silently, when its coordinator `parent` dies (even by SIGKILL), so an
    orphaned worker neither runs on nor prints. Linux delivers SIGKILL through PR_SET_PDEATHSIG;
    elsewhere a daemon thread notices the reparenting within a second."""
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    else:
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the coordinator died before the request took effect
        os._exit(1)


def _prctl(option: int, value: int) -> None:
    ctypes.CDLL(None, use_errno=True).prctl(option, value)


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)
