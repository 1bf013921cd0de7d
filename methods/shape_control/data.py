"""The datasets: `generated` (each seed draws `count` new furniture shapes and gives their coarse controls) and
`byo` (your controls and your generated shapes, `byo.py`). Both carry the trained models the methods and the
realism metrics use, trained on first use and cached: the flow generator, trained once per run seed (its recipe's
seed is the run's, plus the recipe's `seed` as an offset) so that seed-to-seed intervals include the training's
variance; and the shape classifier, trained once, because it is the realism metric's feature extractor (FID's
Inception network is fixed too): a classifier per seed would add the metric's noise, not the method's."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from harness.loader_arguments import whole_number
from harness.errors import DataError
from harness.model_cache import PREPARE_KEYS, model_folder
from methods.shape_control import classifier, flow
from methods.shape_control.byo import RecordedShape, read_controls
from methods.shape_control.furniture import REFERENCE_STREAM, TEST_STREAM, generate
from methods.shape_control.superquadric import Superquadric, occupancy
from methods.common.torch_cache import training_record
from methods.shape_control.training_set import training_shapes


@dataclass(frozen=True)
class Control:
    """One control: its id, its primitives and their voxels, and the voxels of the true shape it was derived from
    (generated data; None for your own controls, whose true-shape metrics are NaN)."""

    id: str
    parts: tuple[Superquadric, ...]
    grid: np.ndarray
    truth: np.ndarray | None = None


@dataclass(frozen=True)
class Models:
    """The flow's recipe (trained per run seed: `flow_dir`) or a trained flow's folder, the classifier's folder,
    and their configs."""

    flow_options: Mapping[str, Any]
    flow_config: flow.FlowConfig
    classifier_dir: Path
    classifier_config: classifier.ClassifierConfig

    def flow_dir(self, seed: int) -> Path:
        """The flow of run seed `seed`, trained first if absent; a `{path: DIR}` flow serves every seed."""
        options = dict(self.flow_options)
        if "path" not in options:
            options["seed"] = int(options.get("seed", 0)) + seed
        return model_folder(options, flow.prepare, flow.FlowConfig)

    @property
    def resolution(self) -> int:
        return self.flow_config.resolution

    def training_grids(self) -> np.ndarray:
        return training_shapes(self.flow_config.train_shapes, self.resolution)[0]


@dataclass(frozen=True)
class ShapeSource:
    """What a loader returns. `controls` is None for generated sets (each seed draws its own); `recorded` holds
    a user's generated shapes by control id."""

    models: Models
    count: int
    reference: int
    controls: tuple[Control, ...] | None = None
    recorded: Mapping[str, RecordedShape] | None = None

    def test_controls(self, seed: int) -> tuple[Control, ...]:
        if self.controls is not None:
            return self.controls
        shapes = [generate(TEST_STREAM, seed, index) for index in range(self.count)]
        side = self.models.resolution
        return tuple(Control(s.id, s.control, occupancy(s.control, side), occupancy(s.parts, side)) for s in shapes)

    def reference_grids(self, seed: int) -> np.ndarray:
        """`reference` real shapes of the seed, the realism metrics' target distribution."""
        return np.stack([occupancy(generate(REFERENCE_STREAM, seed, index).parts, self.models.resolution)
                         for index in range(self.reference)])


@lru_cache(maxsize=4)
def load_flow(root: Path) -> Any:
    return flow.load(root, flow.FlowConfig(**training_record(root)["config"]))


@lru_cache(maxsize=4)
def load_classifier(root: Path) -> Any:
    return classifier.load(root, classifier.ClassifierConfig(**training_record(root)["config"]))


def _flow_config(options: Mapping[str, Any]) -> flow.FlowConfig:
    """The flow's config: read back from a trained folder (`path`), else the recipe's (checked here, before any
    run, with the loader's errors)."""
    if "path" in options:
        return flow.FlowConfig(**training_record(model_folder(options, flow.prepare, flow.FlowConfig))["config"])
    unknown = sorted(set(options) - set(PREPARE_KEYS))
    if unknown:
        raise DataError(f"unknown model argument {unknown[0]!r}", field=f"args.model.{unknown[0]}",
                        hint=f"Known: path, {', '.join(PREPARE_KEYS)}.")
    try:
        return flow.FlowConfig(**dict(options.get("config") or {}))
    except TypeError as exc:
        raise DataError(f"bad tiny-model config: {exc}", field="args.model.config") from None


def _models(model: Mapping[str, Any] | None, shape_classifier: Mapping[str, Any] | None) -> Models:
    flow_options = dict(model or {})
    classifier_dir = model_folder(shape_classifier or {}, classifier.prepare, classifier.ClassifierConfig)
    classifier_config = classifier.ClassifierConfig(**training_record(classifier_dir)["config"])
    return Models(flow_options, _flow_config(flow_options), classifier_dir, classifier_config)


def generated(count: int = 32, reference: int = 256, model: Mapping[str, Any] | None = None,
              classifier: Mapping[str, Any] | None = None) -> ShapeSource:
    """`count` generated furniture controls per seed, scored for realism against `reference` real shapes of the
    seed; `model` / `classifier`: the flow generator's and the shape classifier's recipes ({seed, config,
    num_threads, cache_dir}; the flow is trained per run seed, `seed` offsetting it) or {path: DIR} of a trained
    one (then one flow serves every seed)."""
    return ShapeSource(_models(model, classifier), whole_number(count, "args.count"),
                       whole_number(reference, "args.reference"))


def byo(controls_path: str | Path, reference: int = 256, model: Mapping[str, Any] | None = None,
        classifier: Mapping[str, Any] | None = None) -> ShapeSource:
    """Your controls and generated shapes from a JSONL (`byo.py`), scored like the generated sets."""
    models = _models(model, classifier)
    records = read_controls(Path(controls_path), models.resolution)
    controls = tuple(Control(r.id, r.parts, occupancy(r.parts, models.resolution)) for r in records)
    recorded = {r.id: r.shape for r in records if r.shape is not None}
    return ShapeSource(models, len(controls), whole_number(reference, "args.reference"), controls, recorded)
