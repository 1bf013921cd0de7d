"""Declared method parameters: a pydantic model per method states each parameter's type, range and default.

benchopt's solvers declare their `parameters`; ours add types and ranges, so `harness validate` and
`harness plan` refuse an out-of-range value (a grid's included) with the suite's line, before any worker
starts. The models live in torch-free modules and are registered beside their method
(`methods.add(..., params="pkg.params:Model")`), so checking a suite never imports a method's code.
"""
from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

import annotated_types
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

from harness.errors import RegistryError
from harness.registry import load_target, methods


class MethodParams(BaseModel):
    """The parameters of a method, and the version of the answer they give.

    Strict: an integer parameter refuses 2.5 and `true`, a number refuses "0.1", a flag refuses 1; numbers
    are finite; unknown names are refused. A field holding a sequence takes a YAML list
    (`Annotated[tuple[int, ...], Field(strict=False)]`). Bump `version` whenever the method's code
    changes its answer: it enters every run key.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    version: ClassVar[str] = "1"
    # Values that shrink a run to seconds on its task's `tiny_instance` (fewer epochs, smaller models): the
    # conformance tests run every method with them.
    tiny: ClassVar[Mapping[str, Any]] = {}


def defaults(model: type[MethodParams]) -> dict[str, Any]:
    """Each parameter's default as declared (None for a required one): with the suite's values, what a run
    key hashes. The declared values, not validated copies, so keys planned before declarations hold."""
    return {name: None if field.is_required() else field.default for name, field in model.model_fields.items()}


def describe(field: FieldInfo) -> str:
    """What a parameter takes, for an error's hint: 'an integer >= 1 (default 32)'."""
    default = "required" if field.is_required() else f"default {_yaml(field.default)}"
    return f"{_kind(field.annotation, field.metadata)} ({default})"


_EXPECTED = {"int_type": "an integer", "float_type": "a number", "bool_type": "true or false",
             "string_type": "a string", "finite_number": "a finite number", "tuple_type": "a list"}
_BOUNDS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}


def problem(model: type[MethodParams], error: ValidationError) -> tuple[str | None, str]:
    """The first problem of a failed validation: the parameter (None for a rule across parameters) and
    what is wrong with it, e.g. ('lr', 'lr must be > 0, got -0.1')."""
    errors = error.errors(include_url=False)
    # A union (a rate or a list of rates) fails once per branch: the branch whose type matched says why.
    branches = [e for e in errors if e["loc"][:1] == errors[0]["loc"][:1]]
    first = next((e for e in branches if not e["type"].endswith("_type")), errors[0])
    loc, kind, context, given = first["loc"], first["type"], first.get("ctx", {}), first.get("input")
    name = str(loc[0]) if loc else None
    if kind == "extra_forbidden":
        return name, f"there is no parameter '{name}'"
    if name not in model.model_fields:
        return None, str(first["msg"]).removeprefix("Value error, ")
    if kind == "missing":
        return name, f"{name} is required"
    indexes = [part for part in loc[1:] if isinstance(part, int)]
    where = name + "".join(f"[{index}]" for index in indexes)
    bounds = [f"{symbol} {context[key]}" for key, symbol in _BOUNDS.items() if key in context]
    if bounds:
        expected = " and ".join(bounds)
    elif kind == "too_short":
        expected = f"a list of at least {context['min_length']} value(s)"
    elif kind == "literal_error":
        expected = context["expected"]
    elif kind in _EXPECTED:
        expected = _EXPECTED[kind] if indexes else _kind(model.model_fields[name].annotation)
    else:
        return name, f"{where}: {str(first['msg']).removeprefix('Value error, ')}"
    return name, f"{where} must be {expected}, got {_yaml(given)}{_yaml_number_note(given)}"


class InvalidParams(ValueError):
    """Parameters a method's model refuses: which one (None for a rule across parameters), what is wrong,
    and a hint of what it takes. One message, whether a suite or Python code gave the values."""

    def __init__(self, model: type[MethodParams], error: ValidationError) -> None:
        self.parameter, self.reason = problem(model, error)
        field = model.model_fields.get(self.parameter or "")
        if field is not None:
            self.hint: str | None = f"{self.parameter} takes {describe(field)}."
        elif self.parameter is not None:
            self.hint = f"Its parameters: {', '.join(model.model_fields) or 'none'}."
        else:
            self.hint = None
        super().__init__(self.reason + (f". {self.hint}" if self.hint else ""))


def validate(model: type[MethodParams], values: dict[str, Any]) -> MethodParams:
    """`values` as `model`'s instance, or `InvalidParams` naming the first problem."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise InvalidParams(model, exc) from None


def _kind(annotation: Any, metadata: Sequence[Any] = ()) -> str:
    """An annotation in words: 'an integer >= 1', 'one of 'mean', 'max'', 'a list of numbers > 0', '... or null'."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        inner = [m for extra in args[1:] for m in (extra.metadata if isinstance(extra, FieldInfo) else [extra])]
        return _kind(args[0], [*inner, *metadata])
    bounds = " and ".join(f"{symbol} {getattr(m, attr)}" for m in metadata for attr, symbol in _BOUNDS.items()
                          if isinstance(m, annotated_types.BaseMetadata) and hasattr(m, attr))
    if origin is Literal:
        kind = "one of " + ", ".join(_yaml(a) for a in args)
    elif origin in (typing.Union, types.UnionType):
        kind = " or ".join(_kind(a) for a in args)
    elif origin in (tuple, list):
        kind = "a list of " + _plural(_kind(args[0]))
    else:
        kind = {int: "an integer", float: "a number", bool: "true or false", str: "a string",
                type(None): "null"}.get(annotation, getattr(annotation, "__name__", str(annotation)))
    return f"{kind} {bounds}" if bounds else kind


def _plural(kind: str) -> str:
    """'an integer >= 1' -> 'integers >= 1', for 'a list of ...'."""
    for one, many in (("an integer", "integers"), ("a number", "numbers"), ("a string", "strings"),
                      ("true or false", "flags")):
        if kind.startswith(one):
            return many + kind[len(one):]
    return kind


def _yaml_number_note(value: Any) -> str:
    """YAML 1.1 reads 1e-3 as text (a float needs its dot: 1.0e-3): say so when a string looks like a number."""
    if not isinstance(value, str):
        return ""
    try:
        number = float(value)
    except ValueError:
        return ""
    return f" (YAML reads {value} as text: write {number!r})"


def _yaml(value: Any) -> str:
    """A value as a suite writes it: true, null, 'mean', [32, 32]."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    return repr(value)


def declared_params(method: str) -> type[MethodParams]:
    """A registered method's parameter model: the one registered beside it (`params=`), imported without the
    method's own module, else its class's `params_model` (a plugin's class object, already imported)."""
    entry = methods.entry(method)
    if "params" not in entry.meta:
        return entry.load().params_model
    model = load_target(entry.meta["params"])
    if not (isinstance(model, type) and issubclass(model, MethodParams)):
        raise RegistryError(f"'{method}' is registered with params {model!r}, not a MethodParams subclass",
                            field=method, hint="Point `params=` at the method's pydantic parameter model.")
    return model
