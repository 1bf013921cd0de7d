"""What a family implements: a task, its metrics and its methods.

A task turns a loaded dataset, a split and a seed into an `Instance`; the method sees
only `instance.inputs` and returns an output; the task turns that output into a
per-sample predictions table and scores it. Scoring from the table alone (plus the
instance) is what lets stored or user-supplied predictions be re-scored later.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, cast, get_args, get_origin

from harness.method_params import MethodParams, validate

if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable, Sequence
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from harness.context import RunContext
    from harness.predictions_schema import PredictionsSchema


@dataclass(frozen=True)
class Instance:
    """One evaluation problem: what the method may see, and what it may not."""

    inputs: Any
    truth: Any


@dataclass(frozen=True)
class Metric:
    """A pure function of outputs and ground truth, with its direction and version.

    Bump `version` whenever the definition changes: it enters every run key.
    """

    name: str
    fn: Callable[..., float]
    higher_is_better: bool
    version: str = "1"
    kind: Literal["quality", "hardware"] = "quality"
    unit: str = ""
    description: str = ""
    deterministic: bool = False  # the same inputs always give the same value: claims compare it exactly
    timing: bool = False  # a wall time the run measured itself: a figure of the machine, which reproduce leaves out

    def __call__(self, *args: Any, **kwargs: Any) -> float:
        return float(self.fn(*args, **kwargs))


class Task(ABC):
    """A family's contract between datasets, methods and metrics."""

    def check_split(self, split: Mapping[str, Any]) -> None:  # noqa: B027 (optional hook: a no-op by default)
        """Raise `ValueError` naming the bad key if the suite's `split:` block is invalid.

        Called at validation time, so a typo fails before anything runs.
        """

    def check_dataset(self, loader: str, args: Mapping[str, Any]) -> None:  # noqa: B027 (optional hook)
        """Raise `DataError` naming the bad argument if a dataset's loader arguments are invalid.

        Called by `validate` and `plan` with the registered loader name and the arguments (`path` ones made
        absolute against the data root), for checks that are cheap but need no data loaded: a task whose
        names come from an index (lm-eval's tasks) fails here with a did-you-mean, before anything runs.
        """

    @abstractmethod
    def instance(self, data: Any, split: Mapping[str, Any], seed: int) -> Instance:
        """The problem for one seed (a new split per seed where the protocol says so)."""

    @abstractmethod
    def predictions(self, instance: Instance, output: Any) -> "pd.DataFrame":
        """The method's output as one row per scored sample."""

    @abstractmethod
    def score(self, instance: Instance, predictions: "pd.DataFrame", metrics: Mapping[str, Metric]) -> dict[str, float]:
        """Metric values keyed like `metrics`, computed from the predictions table alone."""

    # The columns of `predictions`' table and how its rows group: the engine checks every table against it
    # (a method's, a stored one re-scored, a user's file) before `score`, naming file, line and column.
    # None: the task checks its tables itself.
    predictions_schema: ClassVar["PredictionsSchema | None"] = None

    def test_samples(self, instance: Instance) -> "Iterable[Hashable] | None":
        """The ids of the instance's test samples, as the `predictions_schema`'s sample column holds them: the
        engine then refuses a table that answers an unknown sample or, where the schema says so, leaves one
        out. None (the default): only the table's own consistency is checked."""
        return None

    def checked(self, instance: Instance, predictions: "pd.DataFrame", *, file: "Path | None" = None,
                lines: "Sequence[int] | None" = None) -> "pd.DataFrame":
        """`predictions` checked against `predictions_schema` and the instance's test samples (a `DataError`
        naming `file`, the row's line and the column), as the engine does before every `score`."""
        if self.predictions_schema is None:
            return predictions
        from harness.predictions_check import checked_table  # pandas: in the worker, not the coordinator

        return checked_table(self.predictions_schema, predictions, self.test_samples(instance), file=file,
                             lines=lines)

    def resample(self, instance: Instance, rng: "np.random.Generator") -> Instance | None:
        """The instance with its test samples drawn with replacement, for a within-run bootstrap.

        Tasks without a per-sample unit keep this default, and report no bootstrap stderr.
        """
        return None

    # True when a method's run on `tiny_instance` trains or loads a model (more than a few seconds): the
    # conformance tests then run it with the slow tests, and check only its parameters by default.
    tiny_instance_is_slow: ClassVar[bool] = False

    def tiny_instance(self, seed: int) -> Instance:
        """A generated problem each of the task's methods solves in seconds with its `params_model.tiny`
        parameters: the conformance tests (tests/conformance) run every registered method on it."""
        raise NotImplementedError(
            f"task {type(self).__module__}.{type(self).__name__} has no tiny instance: give it a "
            "`tiny_instance(seed)` that generates a small problem (see harness.contracts.Task), so the "
            "conformance tests can run its methods")

    def hide_test_labels(self, inputs: Any, rng: "np.random.Generator") -> Any:
        """`inputs` with the hidden test labels they carry randomised (some tasks hand them to reference
        methods, or keep them beside the samples): a method's output must not change. The default returns
        `inputs` itself: they carry none."""
        return inputs


def reject_split_keys(split: Mapping[str, Any], task: str, why: str = "") -> None:
    """`check_split` of a task that takes no split keys (its sizes are dataset arguments): any key is a typo."""
    if split:
        reason = f" ({why})" if why else ""
        raise ValueError(f"unknown split key {sorted(map(str, split))[0]!r}; the {task} task takes none{reason}")


class Determinism(StrEnum):
    """What a method promises of a run repeated under its run key (`Method.determinism`).

    `harness compare` and `ci` read it from each run's record: runs of a method that is bitwise everywhere
    are compared exactly on any machine, those bitwise per numerics fingerprint exactly where the fingerprints
    agree and within the baseline's seed spread where they do not, and the rest always within it.
    `tests/test_repeat_runs.py` checks the declared scope."""

    EVERYWHERE = "everywhere"  # bitwise on any CPU: exact or integer arithmetic, a replay of files
    PER_NUMERICS = "per_numerics"  # bitwise per numerics fingerprint: float kernels reduce as the ISA and BLAS pick
    NO = "no"  # may differ even on one machine (a library's batching, threads, timing)


P = TypeVar("P", bound=MethodParams)


class Method(ABC, Generic[P]):
    """A method: `params_model` declares its parameters, `run` solves one instance.

    The harness builds it as `Method(**params)`, which validates them against `params_model` (the
    planner has already done so for every grid point, with the suite's line on a bad value) and keeps the
    validated model as `self.params`. Keep construction cheap and free of heavy work.

    Name the model once, as the type argument: `class Decoder(Method[DecoderParams])` gets
    `params_model = DecoderParams`, and `self.params` is typed as a `DecoderParams`.
    """

    # What the registry and the worker read; set from `Method[...]` by `__init_subclass__`. The default: no
    # parameters; the model's `version` is the method's.
    params_model: ClassVar[type[MethodParams]] = MethodParams
    # What a repeated run under one run key gives (see `Determinism`); reports name the methods that say NO.
    # Bump `params_model.version` instead when a change of code changes the values.
    determinism: ClassVar[Determinism] = Determinism.PER_NUMERICS
    # True for a reference that reads the answers it is scored against (driving's ground-truth copy): the
    # conformance tests then let its output follow hidden test labels. Every other method must be blind to them.
    reads_hidden_labels: ClassVar[bool] = False

    params: P

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """`params_model` from the class's own `Method[...]` base unless its body sets one. A type variable
        gives its bound: a generic base (`class Agent(Method[AP])`) validates what all its subclasses share."""
        super().__init_subclass__(**kwargs)
        if "params_model" in vars(cls):
            return
        for base in vars(cls).get("__orig_bases__", ()):
            origin, args = get_origin(base), get_args(base)
            if not (isinstance(origin, type) and issubclass(origin, Method) and args):
                continue
            model = args[0].__bound__ if isinstance(args[0], TypeVar) else args[0]
            if isinstance(model, type) and issubclass(model, MethodParams):
                cls.params_model = model

    def __init__(self, **params: Any) -> None:
        # `params_model` is `P`'s class (set above from `Method[P]`), which the type checker cannot follow.
        self.params = cast(P, validate(self.params_model, params))  # `InvalidParams` (a ValueError) names a bad one

    @abstractmethod
    def run(self, inputs: Any, ctx: "RunContext") -> Any:
        """Solve `inputs` (an `Instance.inputs`) and return what the task expects."""
