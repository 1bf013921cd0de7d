"""Your own SB3 Monitor logs: replayed as checkpoints by hand, end to end through a suite, and a malformed file
stops the suite with exit 3 and file:line: column. Your own checkpoint table (a suite's `predictions:` file in
the task's table) scores as the same checkpoints replayed, and a bad one is named with its line and column."""
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness import DataError, RunContext
from harness.store import Store

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations.byo import LoggedAgent, ReplayTask, load_monitor_logs, read_monitor, replayed  # noqa: E402
from methods.rl_representations.metrics import RETURN_AUC  # noqa: E402

HEADER = '#{"t_start": 0.0, "env_id": "CartPole-v1"}\nr,l,t\n'


def write_log(folder: Path, seed: int, rows: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{seed}.monitor.csv"
    path.write_text(HEADER + rows)
    return path


def test_episodes_replay_as_checkpoints_by_hand(tmp_path):
    write_log(tmp_path / "logs", 0, "10,100,1.0\n30,100,2.0\n50,150,3.5\n")  # ends at steps 100, 200, 350
    checkpoints = replayed(read_monitor(tmp_path / "logs" / "0.monitor.csv"), every=100)
    assert checkpoints.columns["step"] == [100, 200, 300]
    assert checkpoints.columns["return"] == [10.0, 20.0, 20.0]
    assert checkpoints.columns["seconds"] == [1.0, 2.0, 2.0]
    assert math.isnan(checkpoints.columns["srank_critic"][0])


def test_the_logged_method_scores_through_the_replay_task(tmp_path):
    write_log(tmp_path / "logs", 3, "10,100,1.0\n30,100,2.0\n")
    data = load_monitor_logs(str(tmp_path / "logs"), every=100)
    task = ReplayTask()
    instance = task.instance(data, {}, 3)
    table = task.predictions(instance, LoggedAgent().run(instance.inputs, RunContext(seed=3, device="cpu", threads=1)))
    assert task.score(instance, table, {"auc": RETURN_AUC}) == {"auc": 15.0}
    with pytest.raises(ValueError, match="no 0.monitor.csv"):
        LoggedAgent().run(data, RunContext(seed=0, device="cpu", threads=1))


@pytest.mark.parametrize(("rows", "line", "column"), [("10,100,1.0\nabc,100,2.0\n", 4, "r"),
                                                       ("10,0,1.0\n", 3, "l"), ("10,100\n", 3, "t")])
def test_a_malformed_log_names_its_file_line_and_column(tmp_path, rows, line, column):
    path = write_log(tmp_path / "logs", 0, rows)
    with pytest.raises(DataError) as caught:
        load_monitor_logs(str(tmp_path / "logs"))
    assert str(caught.value).startswith(f"{path}:{line}: {column}: ")


def test_a_suite_on_a_malformed_log_stops_with_exit_3(tmp_path):
    write_log(tmp_path / "logs", 0, "10,100,1.0\nx,100,2.0\n")
    suite = tmp_path / "mine.yaml"
    suite.write_text(f"""schema_version: 1
suite: mine
task: rl_representations.replay
defaults: {{seeds: [0]}}
datasets:
  mine: {{loader: monitor_logs, args: {{path: {tmp_path / 'logs'}, every: 100}}}}
metrics: [return_auc]
methods:
  logged: {{impl: logged}}
""")
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", str(suite), "--store",
                           str(tmp_path / "s.sqlite")], capture_output=True, text=True)
    assert done.returncode == 3 and "0.monitor.csv:4: r: 'x' is not a number" in done.stderr


BYO_SUITE = """\
schema_version: 1
suite: mine
task: rl_representations.replay
defaults: {{seeds: [0]}}
datasets:
  logs: {{loader: monitor_logs, args: {{path: "{logs}", every: 100}}}}
metrics: [final_return, return_auc, step_ms]
methods:
  logged: {{impl: logged}}
  mine: {{predictions: "preds/{{method}}-{{dataset}}-{{seed}}.csv"}}
"""


def _run_with_checkpoint_table(tmp_path, cli, write_suite, store, change=lambda table: table) -> dict[str, dict]:
    """Both methods of BYO_SUITE: the log replayed, and its checkpoints (changed by `change`) as a CSV file."""
    log = write_log(tmp_path / "logs", 0, "10,100,1.0\n30,100,2.0\n50,150,3.5\n70,100,4.0\n")
    (tmp_path / "preds").mkdir()
    table = pd.DataFrame(replayed(read_monitor(log), every=100).columns)
    change(table).to_csv(tmp_path / "preds" / "mine-logs-0.csv", index=False)
    cli("run", str(write_suite(BYO_SUITE.format(logs=tmp_path / "logs"))), "--store", str(store), plugin=False)
    return {record["method"]: record for record in Store(store).records()}


def test_a_checkpoint_table_scores_as_the_same_log_replayed(tmp_path, cli, write_suite, store):
    records = _run_with_checkpoint_table(tmp_path, cli, write_suite, store)
    assert {name: record["status"] for name, record in records.items()} == {"logged": "ok", "mine": "ok"}
    assert records["mine"]["metrics"] == records["logged"]["metrics"]
    assert records["mine"]["metrics"]["final_return"] == 30.0  # step 400: the three episodes finished by then


def test_a_bad_checkpoint_table_is_named_with_its_line_and_column(tmp_path, cli, write_suite, store):
    def text_return(table: pd.DataFrame) -> pd.DataFrame:
        return table.astype({"return": object}).assign(**{"return": ["10", "20", "n/a", "40"]})

    records = _run_with_checkpoint_table(tmp_path, cli, write_suite, store, text_return)
    path = tmp_path / "preds" / "mine-logs-0.csv"
    assert records["mine"]["status"] == "failed" and records["logged"]["status"] == "ok"
    assert f"{path}:4: return: 'n/a' is not a number" in records["mine"]["error"]
