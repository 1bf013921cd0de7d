"""`Method[P]` names a method's parameter model once: the type argument becomes `params_model`, which the
registry and the worker read, and `self.params` is an instance of it."""
from __future__ import annotations

from typing import TypeVar

from pydantic import Field

from harness import Method, MethodParams


class WindowParams(MethodParams):
    width: int = Field(8, ge=1)


class WideParams(WindowParams):
    stride: int = 2


class OtherParams(MethodParams):
    depth: int = 1


class Window(Method[WindowParams]):
    def run(self, inputs, ctx):  # noqa: ANN001, ANN201
        return inputs


class Bare(Method):
    def run(self, inputs, ctx):  # noqa: ANN001, ANN201
        return inputs


W = TypeVar("W", bound=WindowParams)


class Windowed(Method[W]):
    def run(self, inputs, ctx):  # noqa: ANN001, ANN201
        return self.params.width


class Wide(Windowed[WideParams]):
    pass


def test_the_type_argument_becomes_the_params_model():
    assert Window.params_model is WindowParams
    method = Window(width=3)
    assert isinstance(method.params, WindowParams) and method.params.width == 3


def test_a_bare_subclass_keeps_the_empty_params_model():
    assert Bare.params_model is MethodParams
    assert type(Bare().params) is MethodParams


def test_a_generic_base_validates_its_bound_and_its_subclass_its_own_model():
    assert Windowed.params_model is WindowParams
    assert Wide.params_model is WideParams
    assert isinstance(Wide(stride=3).params, WideParams)


def test_a_subclass_of_a_concrete_method_inherits_its_model():
    class Narrow(Window):
        pass

    assert Narrow.params_model is WindowParams


def test_a_params_model_set_in_the_class_body_wins():
    class Declared(Method[WindowParams]):
        params_model = OtherParams

        def run(self, inputs, ctx):  # noqa: ANN001, ANN201
            return inputs

    assert Declared.params_model is OtherParams
