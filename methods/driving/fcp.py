"""FCP, "Frames before Correct Planning" (FlowAD, ICLR 2026), counted as the released code counts it.

Source: `SparseDrive-Flow/.../planning/planning_eval_response.py` of AutoLab-SAI-SJTU/FlowAD
(printed there as "Avg Response Frame"); rules restated in the spec `flowad.md`:

- frames are keyframes in evaluation order (scene by scene, time-ordered); a frame whose
  3 s ground-truth future is incomplete is skipped entirely, bookkeeping included;
- a frame is correct when the planned command equals the ground-truth command and the
  planned 3 s waypoint is within 0.5 m of the logged one laterally (x only, not the L2);
- a segment opens at each change of ground-truth command and at each new scene;
- the first frame of a scene is never evaluated;
- within a segment each frame before the first correct one adds 1 to the frame count,
  the first correct one adds 1 to the corrected count, and later frames add nothing;
- FCP = frames / corrected (NaN, not the released ZeroDivisionError, when nothing is corrected).

Quirks kept by default and switchable here: a never-corrected segment adds its frames to the
numerator but nothing to the denominator (`never_corrected`), and scene-first frames are not
evaluated (`first_frame`). As a consequence a planner lagging k frames behind every command
change scores 0.75 k, not k, on scenes of 4 segments (the first one is correct at once).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from methods.driving.commands import COMMAND_THRESHOLD_M, driving_command

LATERAL_THRESHOLD_M = 0.5
NeverCorrected = Literal["numerator", "exclude", "count"]
FirstFrame = Literal["skip", "evaluate"]


@dataclass(frozen=True)
class FCPResult:
    """FCP with the counts behind it."""

    fcp: float
    frames: int            # frames before the first correct one, summed over segments (the numerator)
    corrected: int         # segments that reached a correct frame (the released denominator)
    never_corrected: int   # segments evaluated at least once and never correct
    segments: int          # all segments opened, including ones with no evaluated frame
    never_corrected_frames: int


def frames_before_correct_planning(
    scene: np.ndarray, gt_lateral_3s: np.ndarray, planned_lateral_3s: np.ndarray,
    complete: np.ndarray | None = None, *, lateral_threshold: float = LATERAL_THRESHOLD_M,
    command_threshold: float = COMMAND_THRESHOLD_M, never_corrected: NeverCorrected = "numerator",
    first_frame: FirstFrame = "skip",
) -> FCPResult:
    """FCP over frames in evaluation order.

    `never_corrected`: "numerator" (released: their frames count, the segment does not),
    "exclude" (neither counts) or "count" (both count, so every evaluated segment is in the
    denominator). `first_frame`: "skip" (released) or "evaluate" scene-first frames like any other.
    """
    if never_corrected not in ("numerator", "exclude", "count"):
        raise ValueError(f"never_corrected must be 'numerator', 'exclude' or 'count', got {never_corrected!r}")
    if first_frame not in ("skip", "evaluate"):
        raise ValueError(f"first_frame must be 'skip' or 'evaluate', got {first_frame!r}")
    gt_x = np.asarray(gt_lateral_3s, dtype=np.float64)
    plan_x = np.asarray(planned_lateral_3s, dtype=np.float64)
    keep = np.ones(gt_x.shape, bool) if complete is None else np.asarray(complete, dtype=bool)
    gt_cmd = driving_command(gt_x, command_threshold)
    plan_cmd = driving_command(plan_x, command_threshold)
    correct = (plan_cmd == gt_cmd) & (np.abs(plan_x - gt_x) < lateral_threshold)

    frames = corrected = never = segments = never_frames = 0
    prev_scene, prev_cmd = None, None
    added, seg_frames, seg_evaluated = False, 0, False
    for i in np.flatnonzero(keep):
        new_scene = scene[i] != prev_scene
        if new_scene or gt_cmd[i] != prev_cmd:
            if segments and not added and seg_evaluated:
                never, never_frames = never + 1, never_frames + seg_frames
            segments += 1
            added, seg_frames, seg_evaluated = False, 0, False
        if (not new_scene or first_frame == "evaluate") and not added:
            seg_evaluated = True
            if correct[i]:
                corrected, added = corrected + 1, True
            else:
                frames, seg_frames = frames + 1, seg_frames + 1
        prev_scene, prev_cmd = scene[i], gt_cmd[i]
    if segments and not added and seg_evaluated:
        never, never_frames = never + 1, never_frames + seg_frames

    numerator = frames - never_frames if never_corrected == "exclude" else frames
    denominator = corrected + never if never_corrected == "count" else corrected
    value = numerator / denominator if denominator else float("nan")
    return FCPResult(float(value), frames, corrected, never, segments, never_frames)
