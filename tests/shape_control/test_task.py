"""The task end to end on its tiny instance: each method's shapes scored from the predictions table, the
trade-off's ends where they must be, and the table re-scored to the same figures."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness import DataError
from harness.context import RunContext
from methods.shape_control import metrics
from methods.shape_control.baselines.copy_control import CopyControl
from methods.shape_control.baselines.nearest_shape import NearestShape
from methods.shape_control.baselines.unconditional import Unconditional
from methods.shape_control.spacecontrol import SpaceControl
from methods.shape_control.task import ControlledGeneration

EVERY = {name: getattr(metrics, name.upper()) for name in ("chamfer_l2", "fscore", "iou", "frechet", "nn_distance")}


@pytest.fixture
def scored():
    task = ControlledGeneration()
    instance = task.tiny_instance(0)

    def score(method) -> dict[str, float]:  # noqa: ANN001
        table = task.predictions(instance, method.run(instance.inputs, RunContext(0, "cpu", 1)))
        return task.score(instance, table, EVERY)

    return task, instance, score


def test_the_control_itself_is_perfectly_faithful_and_far_from_every_training_shape(scored):
    _, _, score = scored
    copy = score(CopyControl())
    assert (copy["chamfer_l2"], copy["fscore"], copy["iou"]) == (0.0, 1.0, 1.0)
    assert copy["nn_distance"] > 0.3


def test_the_nearest_training_shape_is_a_training_shape(scored):
    _, _, score = scored
    assert score(NearestShape())["nn_distance"] == 0.0


def test_a_small_tau0_stays_closer_to_the_control_than_unconditional_sampling(scored):
    _, _, score = scored
    near = score(SpaceControl(tau0=0.1, steps=10))
    free = score(Unconditional(steps=10))
    assert near["iou"] > free["iou"] and near["chamfer_l2"] < free["chamfer_l2"]
    assert free == score(SpaceControl(tau0=1.0, steps=10))  # the same noise: the same shapes


def test_the_predictions_table_rescoring_and_its_mistakes(scored):
    task, instance, _ = scored
    output = SpaceControl(tau0=0.5, steps=10).run(instance.inputs, RunContext(3, "cpu", 1))
    table = task.predictions(instance, output)
    assert list(table.columns) == ["shape", "occupancy", "points"] and len(table) == 6
    first = task.score(instance, task.checked(instance, table), EVERY)
    assert first == task.score(instance, task.checked(instance, table.iloc[::-1].reset_index(drop=True)), EVERY)
    # an empty cell (NaN, as a CSV's empty field reads) is an absent encoding, like ""
    assert first == task.score(instance, task.checked(instance, table.assign(points=np.nan)), EVERY)
    first_id = table["shape"].iloc[0]
    with pytest.raises(DataError, match=f"shape: the predictions table: 1 test sample.* no row, e.g. '{first_id}'"):
        task.checked(instance, table.iloc[1:])
    with pytest.raises(DataError, match=f"row 1 \\(counting from 0\\): a second row for shape '{first_id}'"):
        task.checked(instance, table.iloc[[0, 0, 1, 2, 3, 4, 5]])
    with pytest.raises(DataError, match="sample 'sofa-1' is not a test sample"):
        task.checked(instance, pd.concat([table, table.iloc[:1].assign(shape="sofa-1")]))
    with pytest.raises(ValueError, match="neither occupancy nor points"):
        task.score(instance, task.checked(instance, table.assign(occupancy="")), EVERY)


def test_a_method_that_skips_a_control_is_refused_by_the_engines_check(scored):
    task, instance, _ = scored
    output = CopyControl().run(instance.inputs, RunContext(0, "cpu", 1))
    skipped = next(iter(output))
    del output[skipped]
    with pytest.raises(DataError, match=f"have no row, e.g. '{skipped}'"):
        task.checked(instance, task.predictions(instance, output))


def test_points_without_voxels_score_faithfulness_only(scored):
    task, instance, _ = scored
    from methods.shape_control.surface import surface_points
    from methods.shape_control.task import GeneratedShape

    output = {c.id: GeneratedShape(points=surface_points(c.grid, c.id)) for c in instance.inputs.controls}
    values = task.score(instance, task.predictions(instance, output), EVERY)
    assert values["chamfer_l2"] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(values["iou"]) and np.isnan(values["frechet"])
