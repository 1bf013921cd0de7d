"""The Ray executor on a real local Ray instance (ray.init with 2 CPUs)."""
from __future__ import annotations

import pytest

from harness.store import Store
from tests.extras import require_extra
from tests.scaleout.equivalence import MIXED, MIXED_STATUSES, QUICKSTART, comparable_records

require_extra("ray")
pytestmark = [pytest.mark.ray, pytest.mark.slow]


def test_ray_matches_local_and_a_killed_task_is_recorded_as_crashed(cli, write_suite, tmp_path):
    suite = str(write_suite(MIXED))
    ray_store, local_store = tmp_path / "ray.sqlite", tmp_path / "local.sqlite"
    assert cli("run", suite, "--store", str(ray_store), "--executor", "ray", "--jobs", "2")[0] == 2
    assert cli("run", suite, "--store", str(local_store), "--jobs", "2")[0] == 2
    assert comparable_records(ray_store) == comparable_records(local_store)
    assert {r["method"]: r["status"] for r in Store(ray_store).records()} == MIXED_STATUSES

    code, out, _ = cli("run", suite, "--store", str(ray_store), "--executor", "ray", "--jobs", "2")
    assert "0 runs executed" in out and "8 already stored" in out


def test_quick_suite_gives_the_same_results_under_ray_and_local(tmp_path, capsys):
    from harness.cli import main

    for executor in ("ray", "local"):
        assert main(["run", str(QUICKSTART), "--store", str(tmp_path / f"{executor}.sqlite"),
                     "--executor", executor, "--jobs", "2"]) == 0
    capsys.readouterr()
    ray_runs, local_runs = comparable_records(tmp_path / "ray.sqlite"), comparable_records(tmp_path / "local.sqlite")
    assert len(ray_runs) == 30 and ray_runs == local_runs
