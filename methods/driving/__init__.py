"""Open-loop planning on nuScenes-format logs (FlowAD's FCP, L2 and collision rate): registrations only."""
from harness.registry import datasets, methods, metrics, tasks

T = "driving.open_loop_planning"
tasks.add(
    T, "methods.driving.task:OpenLoopPlanning",
    "plan 6 ego waypoints (0.5 s apart) per nuScenes keyframe; L2, collision rate and FlowAD's FCP from the plans",
)
datasets.add(
    "driving.nuscenes", "methods.driving.data:load_nuscenes",
    "a nuScenes dataroot (v1.0-mini / v1.0-trainval tables) read with nuscenes-devkit; `path` names a table file",
)
datasets.add(
    "driving.generated_scenes", "methods.driving.data:generated_scenes",
    "seeded straight-turn-straight-turn drives with a lead car, parked cars and pedestrians, written as a "
    "nuScenes-format dataset (13 tables + map PNG) and read back through nuscenes-devkit",
)

for _convention, _reading in (("stp3", "cumulative mean up to t"), ("uniad", "value at t")):
    for _horizon in ("1s", "2s", "3s", "avg"):
        _name = f"l2_{_horizon}_{_convention}"
        metrics.add(f"driving.{_name}", f"methods.driving.metrics:{_name.upper()}",
                    f"L2 (m) at {_horizon}, {_convention} convention ({_reading})")
        for _geometry in ("raster", "polygon"):
            _name = f"collision_{_horizon}_{_convention}_{_geometry}"
            metrics.add(f"driving.{_name}", f"methods.driving.metrics:{_name.upper()}",
                        f"collision rate (%) at {_horizon}, {_convention} convention ({_reading}), "
                        f"{_geometry} geometry")
for _name, _text in (
    ("fcp", "Frames before Correct Planning (FlowAD), counted as the released code does"),
    ("fcp_all_segments", "FCP with never-corrected segments counted in the denominator too"),
    ("fcp_first_frames", "FCP evaluating the first frame of each scene too"),
    ("fcp_frames", "FCP numerator: frames before the first correct plan, summed over segments"),
    ("fcp_corrected", "FCP denominator: command segments that reached a correct plan"),
    ("fcp_never_corrected", "command segments evaluated but never correct"),
    ("fcp_segments", "command segments opened (a property of the data)"),
):
    metrics.add(f"driving.{_name}", f"methods.driving.metrics:{_name.upper()}", _text)

_P = "methods.driving.params"  # parameter models, torch- and devkit-free: validating a suite reads only them
methods.add("driving.gt_copy", "methods.driving.baselines.gt_copy:GroundTruthCopy",
            "copies the logged future: L2 0, FCP 0 (reference)", task=T, params="harness:MethodParams")
methods.add("driving.constant_velocity", "methods.driving.baselines.constant_velocity:ConstantVelocity",
            "extrapolates the current ego velocity for 3 s, ignoring the command", task=T,
            params="harness:MethodParams")
methods.add("driving.command_lag", "methods.driving.baselines.command_lag:CommandLag",
            "copies the logged future but reacts `lag` keyframes late to command changes (reference)", task=T,
            params=f"{_P}:CommandLagParams")
methods.add("driving.lateral_noise", "methods.driving.baselines.lateral_noise:LateralNoise",
            "the logged future with N(0, sigma^2) lateral noise per waypoint (reference)", task=T,
            params=f"{_P}:LateralNoiseParams")
methods.add("driving.lead_collider", "methods.driving.baselines.lead_collider:LeadCollider",
            "the logged path at `speedup` x the logged speed, into the vehicle ahead (reference)", task=T,
            params=f"{_P}:LeadColliderParams")
