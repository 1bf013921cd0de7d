"""Every reported figure as a registered metric: a pure function of one `PlanningEvaluation`.

Names say the convention: `l2_<t>_<stp3|uniad>`, `collision_<t>_<stp3|uniad>_<raster|polygon>`
with t in 1s, 2s, 3s, avg (see `l2.py`, `collision.py`); FlowAD and SparseDrive report
`l2_avg_stp3` and `collision_avg_stp3_polygon`. FCP comes as released (`fcp`), with its counts
and two variants that switch one quirk off each (`fcp.py`).
"""
from __future__ import annotations

from functools import partial

from harness import Metric
from methods.driving.collision import GEOMETRIES, Geometry
from methods.driving.evaluation import PlanningEvaluation
from methods.driving.fcp import FirstFrame, NeverCorrected
from methods.driving.l2 import CONVENTIONS, HORIZONS_S, Convention, at_horizon, horizon_average

HORIZONS = [f"{t}s" for t in HORIZONS_S] + ["avg"]


def _aggregate(per_step, horizon: str, convention: Convention) -> float:  # noqa: ANN001
    if horizon == "avg":
        return horizon_average(per_step, convention)
    return at_horizon(per_step, int(horizon[:-1]), convention)


def l2(evaluation: PlanningEvaluation, horizon: str, convention: Convention) -> float:
    return _aggregate(evaluation.l2_per_step, horizon, convention)


def collision_rate(evaluation: PlanningEvaluation, horizon: str, convention: Convention, geometry: Geometry) -> float:
    return _aggregate(evaluation.collision_per_step(geometry), horizon, convention)


def fcp(evaluation: PlanningEvaluation, never_corrected: NeverCorrected = "numerator",
        first_frame: FirstFrame = "skip") -> float:
    return evaluation.fcp(never_corrected, first_frame).fcp


def fcp_count(evaluation: PlanningEvaluation, field: str) -> float:
    return float(getattr(evaluation.fcp(), field))


def _metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for convention in CONVENTIONS:
        reading = "mean of the steps up to t" if convention == "stp3" else "the step at t"
        for horizon in HORIZONS:
            name = f"l2_{horizon}_{convention}"
            out[name] = Metric(name, partial(l2, horizon=horizon, convention=convention), higher_is_better=False,
                               unit="m", description=f"L2 at {horizon}, {convention} convention ({reading})")
            for geometry in GEOMETRIES:
                name = f"collision_{horizon}_{convention}_{geometry}"
                out[name] = Metric(
                    name, partial(collision_rate, horizon=horizon, convention=convention, geometry=geometry),
                    higher_is_better=False, unit="%",
                    description=f"collision rate at {horizon}, {convention} convention ({reading}), {geometry} "
                                "geometry, steps where the logged path collides excluded")
    out["fcp"] = Metric("fcp", fcp, higher_is_better=False, unit="frames",
                        description="Frames before Correct Planning, FlowAD's released counting")
    out["fcp_all_segments"] = Metric(
        "fcp_all_segments", partial(fcp, never_corrected="count"), higher_is_better=False, unit="frames",
        description="FCP with never-corrected segments in the denominator too (one quirk switched off)")
    out["fcp_first_frames"] = Metric(
        "fcp_first_frames", partial(fcp, first_frame="evaluate"), higher_is_better=False, unit="frames",
        description="FCP evaluating each scene's first frame too (one quirk switched off)")
    out["fcp_frames"] = Metric("fcp_frames", partial(fcp_count, field="frames"), higher_is_better=False,
                               unit="frames", description="FCP numerator: frames before the first correct one")
    out["fcp_corrected"] = Metric("fcp_corrected", partial(fcp_count, field="corrected"), higher_is_better=True,
                                  unit="segments", description="FCP denominator: segments that became correct")
    out["fcp_never_corrected"] = Metric(
        "fcp_never_corrected", partial(fcp_count, field="never_corrected"), higher_is_better=False,
        unit="segments", description="segments evaluated but never correct (their frames count, they do not)")
    out["fcp_segments"] = Metric(
        "fcp_segments", partial(fcp_count, field="segments"), higher_is_better=False, unit="segments",
        description="command segments opened (a count of the data, the same for every planner; direction nominal)")
    return out


METRICS = _metrics()
# Module attributes the registry's lazy `module:ATTR` entries point at, e.g. `metrics:L2_AVG_STP3`.
globals().update({name.upper(): metric for name, metric in METRICS.items()})
