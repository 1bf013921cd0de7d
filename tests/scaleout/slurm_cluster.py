"""A real single-node Slurm on localhost, started for a test session from Debian's packages.

munged, MariaDB, slurmdbd, slurmctld and slurmd run in the foreground as children of the
session, with every file (keys, sockets, state, logs) in a temporary folder and free TCP
ports, so nothing of the machine's own configuration is read or touched; `SLURM_CONF`
points the Slurm commands (and submitit) at it. Accounting (slurmdbd on MariaDB) is
there because submitit reads job states with `sacct`.

Needs root (slurmd starts jobs as their user) and the packages
`slurmctld slurmd slurmdbd slurm-client munge mariadb-server`; without them, or when a
daemon does not come up, the fixture skips and says why.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

BINARIES = ("munged", "mariadb-install-db", "mariadbd", "slurmdbd", "slurmctld", "slurmd",
            "sacctmgr", "sinfo", "sbatch", "sacct", "scancel", "srun")
PARTITION = "debug"
_CLUSTER_NAME = "harness-test"
_START_TIMEOUT_S = 60


class ClusterUnavailable(Exception):
    """Why a local Slurm cannot run here; the fixture skips with this message."""


@dataclass
class SlurmCluster:
    folder: Path
    node: str = field(default_factory=lambda: socket.gethostname().split(".")[0])
    ports: dict[str, int] = field(default_factory=dict)
    _saved_conf: str | None = None
    _daemons: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    @property
    def conf(self) -> Path:
        return self.folder / "slurm.conf"

    def start(self) -> None:
        self._saved_conf = os.environ.get("SLURM_CONF")
        for name in ("mysql", "slurmdbd", "slurmctld", "slurmd"):
            self.ports[name] = _free_port()
        for sub in ("munge", "db", "state", "spool", "log"):
            (self.folder / sub).mkdir(mode=0o700)
        key = self.folder / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        self._write_configs()
        os.environ["SLURM_CONF"] = str(self.conf)
        self._daemon("munged", ["munged", "-F", "--force", f"--socket={self._munge_socket}", f"--key-file={key}",
                                f"--log-file={self.folder / 'log' / 'munged.log'}",
                                f"--pid-file={self.folder / 'munge' / 'munged.pid'}",
                                f"--seed-file={self.folder / 'munge' / 'munged.seed'}"])
        self._wait("munged's socket", self._munge_socket.exists)
        self._command(["mariadb-install-db", "--no-defaults", "--user=root", f"--datadir={self.folder / 'db'}",
                       "--auth-root-authentication-method=normal", "--skip-test-db"])
        self._daemon("mariadbd", ["mariadbd", "--no-defaults", "--user=root", f"--datadir={self.folder / 'db'}",
                                  f"--socket={self.folder / 'mysql.sock'}", "--bind-address=127.0.0.1",
                                  f"--port={self.ports['mysql']}", f"--pid-file={self.folder / 'mysql.pid'}"])
        self._wait("MariaDB", lambda: _listening(self.ports["mysql"]))
        self._daemon("slurmdbd", ["slurmdbd", "-D"])
        self._wait("slurmdbd", lambda: _listening(self.ports["slurmdbd"]))
        self._command(["sacctmgr", "-i", "add", "cluster", _CLUSTER_NAME])
        self._daemon("slurmctld", ["slurmctld", "-D", "-i"])
        self._daemon("slurmd", ["slurmd", "-D", "-N", self.node])
        self._wait("the node to be idle", lambda: self._sinfo() == "idle")

    def stop(self) -> None:
        """Cancel every job of this cluster, then stop the daemons, last started first."""
        if any(name == "slurmctld" for name, _ in self._daemons):
            subprocess.run(["scancel", "--user", "root"], capture_output=True)
            self._wait("the queue to drain", lambda: not subprocess.run(
                ["squeue", "-h"], capture_output=True, text=True).stdout.strip(), raise_on_timeout=False)
        for _, process in reversed(self._daemons):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._daemons.clear()
        if self._saved_conf is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = self._saved_conf

    @property
    def _munge_socket(self) -> Path:
        return self.folder / "munge" / "munge.socket"

    def _write_configs(self) -> None:
        cpus = os.cpu_count() or 1
        memory_mb = int(psutil.virtual_memory().total / 2**20 * 0.8)
        log = self.folder / "log"
        self.conf.write_text(f"""\
ClusterName={_CLUSTER_NAME}
SlurmctldHost={self.node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self._munge_socket}
CredType=cred/munge
SlurmctldPort={self.ports['slurmctld']}
SlurmdPort={self.ports['slurmd']}
StateSaveLocation={self.folder / 'state'}
SlurmdSpoolDir={self.folder / 'spool'}
SlurmctldPidFile={self.folder / 'slurmctld.pid'}
SlurmdPidFile={self.folder / 'slurmd.pid'}
SlurmctldLogFile={log / 'slurmctld.log'}
SlurmdLogFile={log / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
DefMemPerCPU=512
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={self.ports['slurmdbd']}
AccountingStoragePass={self._munge_socket}
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
KillWait=5
MinJobAge=300
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName={PARTITION} Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
""")
        dbd = self.folder / "slurmdbd.conf"  # slurmdbd reads it beside slurm.conf, and only if mode 600
        dbd.write_text(f"""\
AuthType=auth/munge
AuthInfo=socket={self._munge_socket}
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={self.ports['slurmdbd']}
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={self.ports['mysql']}
StorageUser=root
StorageLoc=slurm_acct_db
LogFile={log / 'slurmdbd.log'}
PidFile={self.folder / 'slurmdbd.pid'}
""")
        dbd.chmod(0o600)

    def _daemon(self, name: str, command: list[str]) -> None:
        output = (self.folder / "log" / f"{name}.out").open("w")
        self._daemons.append((name, subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)))

    def _command(self, command: list[str]) -> None:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_START_TIMEOUT_S)
        if done.returncode != 0:
            raise ClusterUnavailable(f"`{' '.join(command)}` failed: {(done.stderr or done.stdout).strip()}")

    def _sinfo(self) -> str:
        done = subprocess.run(["sinfo", "-h", "-n", self.node, "-o", "%T"], capture_output=True, text=True)
        return done.stdout.strip()

    def _wait(self, what: str, ready: Callable[[], bool], raise_on_timeout: bool = True) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not ready():
            dead = [(name, p.returncode) for name, p in self._daemons if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                if not raise_on_timeout:
                    return
                name = dead[0][0] if dead else self._daemons[-1][0]
                tail = (self.folder / "log" / f"{name}.out").read_text(errors="replace").strip().splitlines()[-5:]
                reason = f"{name} exited with {dead[0][1]}" if dead else f"timed out waiting for {what}"
                raise ClusterUnavailable(f"{reason}: {' | '.join(tail)}")
            time.sleep(0.2)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def missing_reason() -> str | None:
    """Why no local Slurm can be started here, before trying; None if it is worth a try."""
    missing = [b for b in BINARIES if shutil.which(b) is None]
    if missing:
        return (f"no local Slurm: {', '.join(missing)} not found (apt-get install slurmctld slurmd slurmdbd "
                "slurm-client munge mariadb-server)")
    if os.geteuid() != 0:
        return "no local Slurm: its daemons need root"
    return None


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory) -> Iterator[SlurmCluster]:
    """A running single-node cluster whose partition is `PARTITION`; skips when it cannot start."""
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
    except ClusterUnavailable as exc:
        cluster.stop()
        pytest.skip(f"no local Slurm: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()
