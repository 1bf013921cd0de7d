"""A method declares its parameters (a `MethodParams` model); the planner checks every grid point of a suite
against it, with the suite's line, and hashes the declared defaults with the suite's values."""
from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field, model_validator

from harness import Method, MethodParams
from harness.method_params import InvalidParams, defaults, describe, validate


class WindowParams(MethodParams):
    version = "3"
    width: int = Field(8, ge=1)
    rate: float = Field(0.1, gt=0, le=1)
    mode: str = "mean"
    scales: Annotated[tuple[Annotated[float, Field(gt=0)], ...], Field(strict=False)] = (1.0, 2.0)

    @model_validator(mode="after")
    def _wide_enough(self) -> "WindowParams":
        if self.width < len(self.scales):
            raise ValueError("width must cover every scale")
        return self


class Window(Method):
    params_model = WindowParams

    def run(self, inputs, ctx):  # noqa: ANN001, ANN201
        return inputs


def test_construction_validates_and_keeps_the_declared_model():
    method = Window(width=4)
    assert method.params == WindowParams(width=4) and method.params.scales == (1.0, 2.0)
    assert Window(scales=[3, 4]).params.scales == (3.0, 4.0)  # a YAML list becomes the declared tuple


@pytest.mark.parametrize("values, message", [
    ({"width": 0}, "width must be >= 1, got 0"),
    ({"width": 2.5}, "width must be an integer, got 2.5"),
    ({"width": True}, "width must be an integer, got true"),
    ({"rate": "1e-3"}, "rate must be a number, got '1e-3' (YAML reads 1e-3 as text: write 0.001)"),
    ({"scales": [1.0, 0.0]}, "scales[1] must be > 0"),
    ({"width": 1}, "width must cover every scale"),
    ({"widht": 4}, "there is no parameter 'widht'"),
])
def test_a_bad_value_names_the_parameter_and_what_is_wrong(values, message):
    with pytest.raises(InvalidParams) as caught:
        Window(**values)
    assert message in str(caught.value)


def test_the_hint_states_what_a_parameter_takes():
    with pytest.raises(InvalidParams) as caught:
        validate(WindowParams, {"rate": 2.0})
    assert caught.value.parameter == "rate"
    assert caught.value.hint == "rate takes a number > 0 and <= 1 (default 0.1)."
    assert describe(WindowParams.model_fields["scales"]) == "a list of numbers > 0 (default [1.0, 2.0])"


def test_the_hashed_defaults_are_the_declared_values_not_validated_copies():
    assert defaults(WindowParams) == {"width": 8, "rate": 0.1, "mode": "mean", "scales": (1.0, 2.0)}
    assert WindowParams.version == "3" and "version" not in WindowParams.model_fields


def _toy_suite(write_suite, params: str):  # noqa: ANN202
    """The toy suite (tests/conftest.py), its `thr` entry with `params` (its line 9)."""
    from tests.conftest import TOY_SUITE

    return write_suite(TOY_SUITE.replace("params: {t: [0.0, 0.5]}", f"params: {params}"))


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_an_out_of_range_grid_value_is_reported_at_its_line_before_any_run(cli, write_suite, command):
    path = _toy_suite(write_suite, "{t: [0.0, 0.5], noise: [0.1, -1]}")
    store = ["--store", str(path.parent / "s.sqlite")] if command == "plan" else []
    code, _, err = cli(command, str(path), *store)
    assert code == 3 and "Traceback" not in err
    assert f"{path}:9:" in err and "methods.thr.params.noise.1" in err
    assert "noise must be >= 0.0, got -1" in err and "noise takes a number >= 0 (default 0.0)" in err


def test_planned_params_are_the_declared_defaults_with_the_suite_values(write_suite, tmp_path):
    from harness.planner import plan
    from harness.registry import load_plugin_file
    from harness.suite import load_suite
    from tests.conftest import TOY_PLUGIN

    load_plugin_file(TOY_PLUGIN)
    suite, source = load_suite(_toy_suite(write_suite, "{t: [0.0, 0.5]}"))
    runs = plan(suite, source, tmp_path)
    assert [run.params for run in runs if run.seed == 0] == [{"t": 0.0, "noise": 0.0}, {"t": 0.5, "noise": 0.0}]
    assert {run.method_version for run in runs} == {"1"}
