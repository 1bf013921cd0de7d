"""The family's dataset loaders: a nuScenes dataroot, or generated scenes written in nuScenes format.

Both end in the devkit (`nuscenes_log.py`), so generated data exercises the real reader.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from harness import DataError
from harness.fingerprint import digest
from methods.driving.generator import SceneSpec, write_dataset
from methods.driving.log import PlanningLog
from methods.driving.nuscenes_log import read_planning_log

CACHE_ENV = "HARNESS_DRIVING_CACHE"


def load_nuscenes(path: Path, scenes: list[str] | None = None, name: str | None = None) -> PlanningLog:
    """A nuScenes dataroot, named by one of its table files: `<dataroot>/<version>/sample.json`.

    The harness resolves `path` under the data root and hashes that file into the dataset
    fingerprint (it hashes files, not folders, so name the table that changes with the data:
    `sample_annotation.json` or `sample.json`). `scenes` picks scene names (e.g. the devkit's
    `mini_val` list: scene-0103, scene-0916); default: every scene of the version.
    """
    path = Path(path)
    if path.suffix != ".json":
        raise DataError("must name a table file of the version folder, e.g. nuscenes/v1.0-mini/sample.json",
                        file=path, field="path")
    version_dir = path.parent
    return read_planning_log(version_dir.parent, version_dir.name, name or version_dir.name, scenes)


def generated_scenes(num_scenes: int = 4, keyframes: int = 40, seed: int = 0, parked_cars: int = 6,
                     pedestrians: int = 2, lead_gap_m: float = 11.0, cache_dir: str | None = None) -> PlanningLog:
    """Generate a nuScenes-format dataset (`generator.py`), write it once, read it back through the devkit.

    It is written to `<cache>/generated-<hash of the arguments>/` where `<cache>` is `cache_dir`,
    else $HARNESS_DRIVING_CACHE, else `<system temp>/harness-driving`; an existing folder is reused.
    Workers that race write to private folders and rename, so the folder appears whole or not at all.
    """
    if keyframes < 8:
        raise DataError(f"keyframes must be at least 8 (a 3 s future needs 7), got {keyframes}", field="keyframes")
    if num_scenes < 1:
        raise DataError(f"num_scenes must be positive, got {num_scenes}", field="num_scenes")
    spec = SceneSpec(num_scenes, keyframes, seed, parked_cars, pedestrians, float(lead_gap_m))
    root = generated_dataroot(spec, cache_dir)
    return read_planning_log(root, spec.version, f"generated-{digest(asdict(spec), 8)}")


def generated_dataroot(spec: SceneSpec, cache_dir: str | None = None) -> Path:
    """The dataroot of `spec`'s dataset, written there first if absent."""
    cache = Path(cache_dir or os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "harness-driving")
    root = cache / f"generated-{digest(asdict(spec))}"
    if (root / spec.version / "map.json").is_file():
        return root
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=cache))
    write_dataset(staging, spec)
    try:
        os.replace(staging, root)
    except OSError:  # another worker finished first: theirs is identical
        shutil.rmtree(staging, ignore_errors=True)
    return root
