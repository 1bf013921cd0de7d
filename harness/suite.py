"""The suite file: schema (pydantic v2, frozen) and loading with positions.

`load_suite` is the only way in: it parses YAML safely, validates the structure, then
checks every registered name (`suite_names`: task, loaders, metrics, methods) with did-you-mean hints,
and reports each problem with the file, line and field.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (AllowInfNan, BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, ValidationError,
                      field_validator, model_validator)

from harness.errors import SuiteError
from harness.format_templates import check_template
from harness.run_resources import Count, Resources, Seed, parse_duration
from harness.suite_extends import resolve_extends
from harness.suite_names import check_names
from harness.yaml_source import YamlSource, load_yaml

SCHEMA_VERSION = 1


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected a number, not true or false")
    return value


def _listed_once(values: list[Any], message: str) -> list[Any]:
    """`values` unchanged, or a ValueError saying `message` when one of them repeats."""
    if len(set(values)) != len(values):
        raise ValueError(message)
    return values


# Numbers as YAML gives them: no booleans (`true` is not 1), no NaN or infinity. A float may be text: YAML 1.1
# reads 6.65e9 (no dot) as a string.
Number = Annotated[float, BeforeValidator(_not_bool), AllowInfNan(False)]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Defaults(_Frozen):
    seeds: list[Seed] = Field(default_factory=lambda: [0], min_length=1)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    timeout: float = Field(1800.0, description="seconds, or a string like '20m'")
    threads: Count = Field(1, ge=1, description="torch/BLAS threads per run")
    resources: Resources = Field(default_factory=Resources)

    _timeout = field_validator("timeout", mode="before")(lambda v: parse_duration(v))

    _unique_seeds = field_validator("seeds")(lambda seeds: _listed_once(seeds, "seeds repeat; list each seed once"))


class DatasetEntry(_Frozen):
    loader: str
    args: dict[str, Any] = Field(default_factory=dict)
    split: dict[str, Any] = Field(default_factory=dict)


class MethodEntry(_Frozen):
    """A registered implementation with a parameter grid, or a folder of predictions to score."""

    impl: str | None = None
    params: dict[str, Any] = Field(default_factory=dict, description="a list value expands to a grid axis")
    dataset_params: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="per-dataset values that override params on that dataset (a paper's per-dataset settings); "
                    "taken literally: a list here is a list value, not a grid axis",
    )
    predictions: str | None = Field(
        None, description="path template with {method}, {dataset}, {seed}: scored, never run"
    )
    resources: Resources | None = None

    @field_validator("predictions")
    @classmethod
    def _path_template(cls, template: str | None) -> str | None:
        if template is not None:
            check_template(template, {"method": "m", "dataset": "d", "seed": 0})
        return template

    @model_validator(mode="after")
    def _impl_or_predictions(self) -> "MethodEntry":
        if (self.impl is None) == (self.predictions is None):
            raise ValueError("give exactly one of 'impl' (a registered method) or 'predictions' (files to score)")
        if self.predictions is not None and (self.params or self.dataset_params):
            raise ValueError("'params' and 'dataset_params' have no meaning for a 'predictions' entry")
        for name, value in self.params.items():
            if isinstance(value, list) and not value:
                raise ValueError(f"params.{name} is an empty list, so the grid would be empty")
        for dataset, overrides in self.dataset_params.items():
            for name in overrides:
                if isinstance(self.params.get(name), list):
                    raise ValueError(f"dataset_params.{dataset}.{name} overrides a grid axis; "
                                     "fix the value or the axis")
        return self


class MatrixRule(_Frozen):
    method: str | None = None
    dataset: str | None = None


class Matrix(_Frozen):
    include: list[MatrixRule] = Field(default_factory=list)
    exclude: list[MatrixRule] = Field(default_factory=list)


class Reference(_Frozen):
    """A number cited from a paper; shown beside ours, never mixed up with it."""

    method: str
    dataset: str
    metric: str
    value: Number
    std: Number | None = Field(None, ge=0, description="the paper's ± when it is a standard deviation")
    ci95: Number | None = Field(None, ge=0, description="the paper's ± when it is a 95% CI half-width")
    range: tuple[Number, Number] | None = Field(None, description="[low, high] when the paper gives a range; "
                                                               "`value` is then the figure the difference uses")
    source: str = Field(min_length=1, description="where it is cited from, e.g. 'APF, Table 1'")
    comparable: bool = Field(
        True, description="false where the paper's figure counts something else than our metric (e.g. peak VRAM, "
                          "activations included, beside analytic tensor bytes): the report shows both, no difference")

    @model_validator(mode="after")
    def _one_spread(self) -> "Reference":
        given = [name for name in ("std", "ci95", "range") if getattr(self, name) is not None]
        if len(given) > 1:
            raise ValueError(f"give one of std, ci95 and range, not {' and '.join(given)}")
        if self.range is not None and not self.range[0] <= self.value <= self.range[1]:
            raise ValueError(f"value {self.value} lies outside its range {list(self.range)}")
        return self


AggregateStatistic = Literal["mean", "median", "iqm", "optimality_gap"]  # harness.aggregates.STATISTICS


class Normalisation(_Frozen):
    """One dataset's min-max normalisation: `low` (e.g. a random scorer's score) maps to 0, `high` (a reference
    method's) to 1. For a lower-is-better metric `low` is the larger number, so normalised scores rise."""

    low: Number
    high: Number

    @model_validator(mode="after")
    def _distinct(self) -> "Normalisation":
        if self.low == self.high:
            raise ValueError(f"low and high are both {self.low}; normalising divides by their difference")
        return self

    def apply(self, score: float) -> float:
        return (score - self.low) / (self.high - self.low)


class Aggregates(_Frozen):
    """Report-level aggregates of one metric over the suite's datasets (rliable's; `harness.aggregates`)."""

    metric: str
    normalise: dict[str, Normalisation] = Field(
        min_length=1, description="per dataset, {low, high}: every dataset of the suite, so tasks share one scale")
    statistics: list[AggregateStatistic] = Field(["iqm", "mean", "median", "optimality_gap"], min_length=1)
    method: str | None = Field(
        None, description="the suite's own method: the report gives its probability of improvement over each other")
    reps: Annotated[StrictInt, Field(ge=100, le=100_000)] = Field(2000, description="bootstrap draws")
    gamma: Number = Field(1.0, description="the optimality gap's target, on the normalised scale")
    seed: Seed = Field(0, description="the bootstrap's seed")

    _unique_statistics = field_validator("statistics")(
        lambda names: _listed_once(names, "statistics repeat; list each once"))


class ClaimCheck(_Frozen):
    metric: str
    best: str | None = Field(None, description="this method has the best mean on every dataset")
    better: str | None = None
    than: str | None = None
    dataset: str | None = None
    at_matched: str | None = Field(
        None, description="compare 'better' and 'than' at equal values of this metric (e.g. density): each "
                          "variant of 'better' against the curve of 'than''s variants interpolated there, per seed")
    select_by: str | None = Field(
        None, description="a validation figure (a measure the methods record, e.g. best_val_auprc): a method with "
                          "several grid variants is represented, per dataset, by the variant with its best mean; "
                          "never a test metric")
    aggregate: Literal[AggregateStatistic, "probability_of_improvement"] | None = Field(
        None, description="state 'best' / 'better' over this aggregate of the suite's `aggregates` block, across "
                          "datasets, decided by the stratified-bootstrap 95% interval of the difference (of P(X > Y) "
                          "against 1/2)")
    effect_size: float | None = Field(
        None, gt=0, description="the effect the claim states, in standard deviations of the paired differences "
                                "(Cohen's d_z): `harness validate` warns when the suite's seeds detect it with "
                                "power below 0.8, saying how many would")

    @model_validator(mode="after")
    def _one_form(self) -> "ClaimCheck":
        if (self.best is None) == (self.better is None):
            raise ValueError("a claim check needs either 'best' or 'better' + 'than'")
        if self.better is not None and self.than is None:
            raise ValueError("'better' needs 'than'")
        if self.at_matched is not None and self.better is None:
            raise ValueError("'at_matched' compares 'better' with 'than'; it does not apply to 'best'")
        if self.select_by is not None and self.select_by == self.metric:
            raise ValueError(f"'select_by: {self.select_by}' is the claim's own metric: a variant chosen on the "
                             "test metric flatters it; name a validation figure or one variant")
        if self.aggregate is not None and (self.dataset is not None or self.at_matched is not None):
            raise ValueError(f"'aggregate: {self.aggregate}' is over all datasets at the runs' own values; "
                             "it takes neither 'dataset' nor 'at_matched'")
        return self


class CurveMetric(_Frozen):
    """A metric derived from a learning curve the methods record (`ctx.record_curve`), usable wherever a
    metric is (tables, claims, regression rules); computed when a suite's runs are loaded (`harness.curve_metrics`).

    `auc`: area under the curve by the trapezoid rule over [start, stop] (default: the recorded range),
    divided by the range's width with `normalise`; `at_step`: the value at `step`, linearly interpolated;
    `first_reaching`: the first recorded step whose value reaches `threshold` (at or above it when higher is
    better, at or below otherwise), infinite when none does; fewer steps are better.
    """

    curve: str = Field(min_length=1, description="the name the methods record the curve under")
    kind: Literal["auc", "at_step", "first_reaching"]
    higher_is_better: bool = Field(description="the curve's direction (a recorded direction must agree)")
    step: Number | None = Field(None, description="at_step: the step to read the curve at")
    threshold: Number | None = Field(None, description="first_reaching: the value to reach")
    start: Number | None = Field(None, description="auc: the first step of the range (default: the first recorded)")
    stop: Number | None = Field(None, description="auc: the last step of the range (default: the last recorded)")
    normalise: bool = Field(False, description="auc: divide by the range's width (the curve's mean level)")
    description: str = ""

    @model_validator(mode="after")
    def _parameters_of_kind(self) -> "CurveMetric":
        needed = {"auc": set(), "at_step": {"step"}, "first_reaching": {"threshold"}}[self.kind]
        allowed = needed | ({"start", "stop", "normalise"} if self.kind == "auc" else set())
        given = {name for name in ("step", "threshold", "start", "stop") if getattr(self, name) is not None}
        given |= {"normalise"} if self.normalise else set()
        if needed - given:
            raise ValueError(f"kind '{self.kind}' needs '{sorted(needed - given)[0]}'")
        if given - allowed:
            raise ValueError(f"'{sorted(given - allowed)[0]}' has no meaning for kind '{self.kind}'")
        if self.start is not None and self.stop is not None and not self.start < self.stop:
            raise ValueError(f"start {self.start:g} must be below stop {self.stop:g}")
        return self

    @property
    def metric_higher_is_better(self) -> bool:
        """The derived metric's direction: the curve's, except a step count, where fewer is better."""
        return False if self.kind == "first_reaching" else self.higher_is_better


class Claim(_Frozen):
    text: str
    check: ClaimCheck


class Tradeoff(_Frozen):
    x: str = Field(description="the cost axis, e.g. density")
    y: str = Field(description="the quality axis, e.g. recall_mean")


class ReportBlock(_Frozen):
    rows: Literal["method", "dataset"] = "method"
    cols: Literal["method", "dataset"] = "dataset"
    metric: str | None = None
    cell: str = "{mean:.2f} ± {ci95:.2f}"
    cells: dict[str, str] = Field(
        default_factory=dict,
        description="per-metric cell formats that override 'cell' (e.g. {prefill_sparsity: auto}); 'auto' gives "
                    "mean ± 95% CI with the digits the interval sets")
    bold: Literal["best", "none"] = "best"
    measures: list[str] = Field(
        default_factory=list,
        description="figures the methods record (ctx.record), tabulated like wall_s, lower is better",
    )
    tradeoffs: list[Tradeoff] = Field(
        default_factory=list,
        description="plots of y against x, a curve per method through its grid variants (e.g. recall vs density)",
    )
    notes: list[str] = Field(
        default_factory=list,
        description="caveats a reader needs beside the verdicts (what was measured and how it differs from the "
                    "paper's setting), printed just before the claims",
    )

    @field_validator("cell")
    @classmethod
    def _known_fields(cls, template: str) -> str:
        try:
            check_template(template, {"mean": 1.0, "std": 1.0, "ci95": 1.0, "ci_low": 1.0, "ci_high": 1.0, "n": 3})
        except ValueError as exc:
            raise ValueError(f"cell template {exc}; or write 'auto'") from None
        return template

    @field_validator("cells")
    @classmethod
    def _known_fields_each(cls, templates: dict[str, str]) -> dict[str, str]:
        return {metric: cls._known_fields(template) for metric, template in templates.items()}

    def template(self, metric: str) -> str:
        """The cell format of a quality metric: its own, else the suite's."""
        return self.cells.get(metric, self.cell)


class RegressionRule(_Frozen):
    metric: str
    max_drop: Number | None = Field(None, ge=0)
    max_ratio: Number | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_tolerance(self) -> "RegressionRule":
        if (self.max_drop is None) == (self.max_ratio is None):
            raise ValueError("a rule needs exactly one of 'max_drop' or 'max_ratio'")
        return self


class Regression(_Frozen):
    rules: list[RegressionRule] = Field(default_factory=list)


class Suite(_Frozen):
    """A suite file: which methods run on which datasets, scored by which metrics."""

    schema_version: Literal[1]
    extends: str | None = Field(None, description="a suite file (relative to this one's folder) whose keys this "
                                                  "one changes: mappings merge, null drops a key, the rest replaces")
    suite: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    task: str
    description: str = ""
    defaults: Defaults = Field(default_factory=Defaults)
    datasets: dict[str, DatasetEntry] = Field(min_length=1)
    metrics: list[str] = Field(min_length=1)
    methods: dict[str, MethodEntry] = Field(min_length=1)
    matrix: Matrix = Field(default_factory=Matrix)
    references: list[Reference] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    report: ReportBlock = Field(default_factory=ReportBlock)
    regression: Regression = Field(default_factory=Regression)
    aggregates: Aggregates | None = None
    curve_metrics: dict[str, CurveMetric] = Field(
        default_factory=dict, description="metrics derived from recorded learning curves, by name")

    @field_validator("schema_version", mode="before")
    @classmethod
    def _integer_version(cls, value: Any) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):  # `true` and 1.0 equal 1 to a Literal
            raise ValueError("not the integer 1")
        return value

    @property
    def family(self) -> str:
        return self.task.split(".", 1)[0]


def load_suite(path: str | Path) -> tuple[Suite, YamlSource]:
    """Parse, validate and name-check a suite file (laid over the suite it `extends`); raises `SuiteError` with its
    position."""
    source = resolve_extends(load_yaml(path))
    if not isinstance(source.data, dict):
        raise source.error((), "a suite file must be a mapping with keys such as 'suite', 'task', 'methods'")
    try:
        suite = Suite.model_validate(source.data)
    except ValidationError as exc:
        raise _first_error(source, exc) from None
    check_names(suite, source)
    return suite, source


def _first_error(source: YamlSource, exc: ValidationError) -> SuiteError:
    first = exc.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    kind = first["type"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(loc[:-1])
        return source.error(loc, f"unknown key '{loc[-1]}'", hint=f"Allowed here: {', '.join(allowed)}.")
    if kind == "missing":
        return source.error(loc[:-1], f"required key '{loc[-1]}' is missing")
    if loc == ("schema_version",):
        return source.error(loc, f"schema_version must be {SCHEMA_VERSION}",
                            hint="This harness reads version 1 suites.")
    message = first["msg"].removeprefix("Value error, ")
    return source.error(loc, message[0].lower() + message[1:])


def _allowed_keys(parent: tuple[Any, ...]) -> list[str]:
    model: type[BaseModel] = Suite
    for part in parent:
        field = model.model_fields.get(str(part)) if isinstance(part, str) else None
        if field is None:
            continue
        annotation = field.annotation
        args = getattr(annotation, "__args__", ())
        for candidate in (annotation, *args):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                model = candidate
                break
    return sorted(model.model_fields)


def json_schema() -> dict[str, Any]:
    """The suite file's JSON Schema, for editors and `harness schema`."""
    return Suite.model_json_schema()
