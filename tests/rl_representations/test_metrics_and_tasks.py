"""The task contracts and the metrics on hand-made checkpoint tables; the area under the return curve is the
harness's trapezoid rule; the plasticity operations; the non-stationary task's label phases."""
import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

from harness import DataError

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations import metrics  # noqa: E402
from methods.rl_representations.environments import load_classic, load_minatar  # noqa: E402
from methods.rl_representations.nonstationary import NonStationaryTask, load_digits  # noqa: E402
from methods.rl_representations.plasticity import shrink_and_perturb  # noqa: E402
from methods.rl_representations.checkpoints import Checkpoints  # noqa: E402
from methods.rl_representations.task import ControlTask  # noqa: E402


def checkpoints(returns, steps=None) -> Checkpoints:
    out = Checkpoints()
    for i, value in enumerate(returns):
        step = (i + 1) * 100 if steps is None else steps[i]
        out.add(step=step, **{"return": value}, seconds=step / 1000, dormant_actor=0.1 * i, dormant_critic=0.2,
                srank_actor=3, srank_critic=4 + i)
    return out


def test_the_control_task_scores_its_table_by_hand():
    task = ControlTask()
    instance = task.instance(load_classic("CartPole-v1", 300, 100), {}, 0)
    table = task.predictions(instance, checkpoints([10.0, 30.0, 20.0]))
    keys = {m.name: m for m in (metrics.FINAL_RETURN, metrics.RETURN_AUC, metrics.SRANK_CRITIC, metrics.STEP_MS,
                                metrics.DORMANT_ACTOR)}
    scores = task.score(instance, table, keys)
    # trapezoids (10+30)/2*100 + (30+20)/2*100 = 4500 over a range of 200
    assert scores == pytest.approx({"final_return": 20.0, "return_auc": 22.5, "srank_critic": 6.0,
                                    "step_ms": 1.0, "dormant_actor": 0.2})


def test_a_one_checkpoint_run_has_its_return_as_its_area():
    table = pd.DataFrame({"step": [100], "return": [7.0]})
    assert metrics.return_auc(table) == 7.0


def test_malformed_checkpoints_are_refused_by_the_tasks_table():
    task = ControlTask()
    instance = task.tiny_instance(0)
    with pytest.raises(ValueError, match="Checkpoints"):
        task.predictions(instance, {"step": [1]})
    with pytest.raises(DataError, match="step: the predictions table: no column 'step'"):
        task.checked(instance, task.predictions(instance, Checkpoints()))
    twice = task.predictions(instance, checkpoints([1.0, 2.0], steps=[100, 100]))
    with pytest.raises(DataError, match="row 1 .*: a second row for step 100"):
        task.checked(instance, twice)
    table = task.predictions(instance, checkpoints([1.0, 2.0]))
    with pytest.raises(DataError, match="return: .*row 1 .*: holds inf"):
        task.checked(instance, table.assign(**{"return": [1.0, np.inf]}))
    with pytest.raises(DataError, match="no checkpoint"):
        task.score(instance, task.checked(instance, table.iloc[:0]), {"final": metrics.FINAL_RETURN})


def test_checkpoints_in_any_order_score_as_in_step_order():
    task = ControlTask()
    instance = task.tiny_instance(0)
    table = task.checked(instance, task.predictions(instance, checkpoints([10.0, 30.0, 20.0])))
    keys = {"final": metrics.FINAL_RETURN, "auc": metrics.RETURN_AUC, "ms": metrics.STEP_MS}
    assert task.score(instance, table.iloc[::-1], keys) == task.score(instance, table, keys)
    logged = table.assign(dormant_actor=np.nan)  # a run that logs no diagnostics leaves them empty
    assert np.isnan(task.score(instance, task.checked(instance, logged), {"d": metrics.DORMANT_ACTOR})["d"])


def _epochs(phases: int, per_phase: int) -> pd.DataFrame:
    epochs = np.arange(1, phases * per_phase + 1)
    return pd.DataFrame({"epoch": epochs, "phase": (epochs - 1) // per_phase, "accuracy": 10.0 * epochs,
                         "dormant": 0.1, "srank": 5.0})


def test_the_non_stationary_table_needs_every_epoch_once_in_any_order():
    task = NonStationaryTask()
    instance = task.instance(load_digits(samples=20, phases=2, epochs_per_phase=3), {}, seed=0)
    table = task.checked(instance, _epochs(2, 3))
    keys = {"phase": metrics.PHASE_ACCURACY, "last": metrics.LAST_PHASE_ACCURACY}
    assert task.score(instance, table, keys) == {"phase": 45.0, "last": 60.0}  # (30 + 60) / 2
    assert task.score(instance, table.iloc[::-1], keys) == task.score(instance, table, keys)
    with pytest.raises(DataError, match="1 test sample.*have no row, e.g. 6"):
        task.checked(instance, _epochs(2, 3).iloc[:5])
    with pytest.raises(DataError, match="sample 7 is not a test sample"):
        task.checked(instance, _epochs(2, 3).assign(epoch=np.arange(2, 8)))


def test_loaders_refuse_unknown_environments_and_budgets_without_a_checkpoint():
    with pytest.raises(DataError, match="not a classic environment"):
        load_classic("Pong-v5")
    with pytest.raises(DataError, match="no checkpoint"):
        load_minatar("Breakout", steps=10, every=100)
    env = load_minatar("Breakout", steps=100, every=50).make(0)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (400,)


def test_shrink_and_perturb_mixes_a_fresh_initialisation_in():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 4))
    before = net[0].weight.detach().clone()
    torch.manual_seed(1)
    fresh = nn.Linear(4, 4).weight.detach()
    torch.manual_seed(1)
    with torch.no_grad():
        shrink_and_perturb(net, alpha=0.8)
    torch.testing.assert_close(net[0].weight.detach(), 0.8 * before + 0.2 * fresh)


def test_the_label_phases_start_true_and_are_permutations_of_the_labels():
    task = NonStationaryTask()
    instance = task.instance(load_digits(samples=100, phases=3, epochs_per_phase=1), {}, seed=4)
    labels = instance.inputs.labels
    assert labels.shape == (3, 100) and (labels[0] == instance.inputs.y).all()
    assert all(sorted(row) == sorted(instance.inputs.y) for row in labels)
    assert (labels[1] != labels[2]).any()
    again = task.instance(load_digits(samples=100, phases=3, epochs_per_phase=1), {}, seed=4).inputs.labels
    assert (again == labels).all()


def test_phase_accuracy_averages_each_phases_last_epoch():
    table = pd.DataFrame({"phase": [0, 0, 1, 1], "accuracy": [10.0, 50.0, 20.0, 30.0]})
    assert metrics.phase_accuracy(table) == 40.0


def test_the_overhead_ratio_pairs_seeds_and_gives_a_t_interval():
    from methods.rl_representations.overhead import overhead_table

    runs = pd.DataFrame({"status": "ok", "dataset": "d", "method": ["ppo"] * 3 + ["ppo_sem"] * 3,
                         "seed": [0, 1, 2] * 2, "measure.cpu_s": [10.0, 20.0, 40.0, 15.0, 30.0, 60.0]})
    row = overhead_table(runs, "ppo", ["ppo_sem"]).iloc[0]
    assert (row.seeds, row.ratio, row.low, row.high) == (3, 1.5, 1.5, 1.5)
