"""Hand-made planning logs (no devkit): scenes given as the 3 s lateral offset of each keyframe.

Like the Ray and Slurm tests, this family's tests skip when its extra is not installed
(`pip install -e ".[driving]"`); CI installs every extra.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from methods.driving.log import PlanningLog

SPEED = 6.0  # m/s, straight ahead (+y)
_EXTRA_MISSING = [m for m in ("shapely", "pyquaternion") if importlib.util.find_spec(m) is None]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip this folder's tests, with the install line, when the driving extra is absent."""
    if not _EXTRA_MISSING:
        return
    skip = pytest.mark.skip(reason=f"the driving extra is not installed (no {', '.join(_EXTRA_MISSING)}): "
                                   "pip install -e '.[driving]'")
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(skip)


def trajectory_with_lateral(x3: float) -> np.ndarray:
    """(6, 2) waypoints moving ahead at SPEED whose lateral offset grows to `x3` at 3 s."""
    share = np.arange(1, 7) / 6.0
    return np.stack([x3 * share**2, SPEED * 0.5 * np.arange(1, 7)], axis=1)


def make_log(scenes: dict[str, list[float]], incomplete: set[tuple[str, int]] = frozenset(),
             boxes: list[tuple[int, int, tuple[float, float, float, float, float]]] = ()) -> PlanningLog:
    """A log whose frame f of scene s has GT 3 s lateral offset scenes[s][f]; `incomplete` masks step 6
    of the given (scene, frame); `boxes` are (frame row, step, (x, y, length, width, yaw)) rows."""
    tokens, names, trajectories, masks = [], [], [], []
    for name, laterals in scenes.items():
        for f, x3 in enumerate(laterals):
            tokens.append(f"{name}-{f:03d}")
            names.append(name)
            trajectories.append(trajectory_with_lateral(x3))
            mask = np.ones(6, bool)
            if (name, f) in incomplete:
                mask[-1] = False
            masks.append(mask)
    n = len(tokens)
    box_rows = np.array([b[2] for b in boxes], float).reshape(-1, 5)
    return PlanningLog(
        name="hand-made", sample_token=np.array(tokens), scene=np.array(names),
        timestamp=np.arange(n, dtype=np.int64) * 500_000, gt_trajectory=np.array(trajectories).reshape(n, 6, 2),
        gt_mask=np.array(masks).reshape(n, 6), ego_velocity=np.tile([0.0, SPEED], (n, 1)),
        boxes=box_rows, box_frame=np.array([b[0] for b in boxes], np.int64),
        box_step=np.array([b[1] for b in boxes], np.int64),
    )


def four_segment_scene(length: int = 8) -> list[float]:
    """Straight, right, straight, left: 4 command segments of `length` keyframes each."""
    return [0.0] * length + [4.0] * length + [0.0] * length + [-4.0] * length


@pytest.fixture
def four_segment_log() -> PlanningLog:
    return make_log({"scene-a": four_segment_scene(), "scene-b": four_segment_scene()})
