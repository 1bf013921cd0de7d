"""What the generated clips favour: MPJPE per motion (walk, run, jump, wave, dance) of each stored run of a suite
on `generated` data, mean over seeds, beside each variant's bits per frame. The suite's report averages over all
test clips; this table says which motions make keyframe interpolation or the codebook cheap or costly.

    python3 -m methods.motion_tokens.motion_breakdown suites/motion_tokenizer.yaml \
        --runs reports/motion_tokenizer/runs.csv --predictions STORE-runs/motion_tokenizer/predictions \
        --out reports/motion_tokenizer/by_motion.md

A run's predictions file is `<run_key>.<run_id>.parquet` in the store's predictions folder; each test clip's motion
is found by matching the seed's test clips against the dataset's labelled clips."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from methods.motion_tokens.data import generated
from methods.motion_tokens.gaits import MOTIONS
from methods.motion_tokens.scored import scored_motion
from methods.motion_tokens.task import MotionReconstruction

MM = 1000.0


def clip_motions(clips: np.ndarray, labels: tuple[str, ...], test: np.ndarray) -> list[str]:
    """The motion of each test clip: the label of the dataset clip it equals (retargeting and noise are separate)."""
    flat = clips.reshape(len(clips), -1)
    return [labels[int(np.flatnonzero((flat == clip.ravel()).all(axis=1))[0])] for clip in test]


def per_motion_mpjpe(suite_path: Path, runs: pd.DataFrame, predictions: Path) -> pd.DataFrame:
    """One row per (method variant, dataset): mean over seeds of each motion's clean-clip MPJPE (mm)."""
    suite = yaml.safe_load(suite_path.read_text())
    task = MotionReconstruction()
    rows = []
    for (dataset, seed), group in runs[runs["status"] == "ok"].groupby(["dataset", "seed"]):
        spec = suite["datasets"][dataset]
        data = generated(**spec.get("args", {}))
        instance = task.instance(data, spec.get("split", {}), int(seed))
        labels = np.array(clip_motions(data.clips, data.labels, instance.truth.clean))
        for run in group.itertuples():
            table = pd.read_parquet(predictions / f"{run.run_key}.{run.run_id}.parquet")
            scored = scored_motion(instance.truth, table)
            error = MM * np.linalg.norm(scored.decoded["clean"] - instance.truth.clean, axis=-1).mean(axis=(1, 2))
            row = {"method": run.method, "dataset": dataset, "seed": seed,
                   "bits_per_frame": scored.bits_per_clip / instance.truth.clean.shape[1]}
            row.update({motion: float(error[labels == motion].mean())
                        for motion in MOTIONS if (labels == motion).any()})
            rows.append(row)
    frame = pd.DataFrame(rows)
    return frame.groupby(["method", "dataset"], sort=False).mean(numeric_only=True).drop(columns="seed").reset_index()


def markdown(table: pd.DataFrame, seeds: int) -> str:
    motions = [m for m in MOTIONS if m in table]
    lines = [f"MPJPE (mm) of the clean test clips per motion, mean over {seeds} seeds; bits per frame of each "
             "variant (methods/motion_tokens/motion_breakdown.py, from the stored predictions of runs.csv).", "",
             "| method | dataset | bits/frame | " + " | ".join(motions) + " |",
             "|---|---|---:|" + "---:|" * len(motions)]
    for row in table.sort_values(["dataset", "bits_per_frame"]).itertuples():
        cells = " | ".join(f"{getattr(row, m):.1f}" for m in motions)
        lines.append(f"| {row.method} | {row.dataset} | {row.bits_per_frame:.2f} | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--runs", type=Path, required=True, help="the report's runs.csv")
    parser.add_argument("--predictions", type=Path, required=True, help="the store's predictions folder")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    runs = pd.read_csv(args.runs, dtype={"run_key": str, "run_id": str})
    table = per_motion_mpjpe(args.suite, runs, args.predictions)
    args.out.write_text(markdown(table, runs["seed"].nunique()))


if __name__ == "__main__":
    main()
