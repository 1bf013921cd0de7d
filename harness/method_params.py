"""Declared method parameters: a pydantic model per method states each parameter's type, range and default.

benchopt's solvers declare their `parameters`; ours add types and ranges, so `harness validate` and
`harness plan` refuse an out-of-range value (a grid's included) with the suite's line, before any worker
starts. The models live in torch-free modules and are registered beside their method
(`methods.add(..., params="pkg.params:Model")`), so checking a suite never imports a method's code.
"""
from __future__ import annotations

import types
import typing
from typing import Any, ClassVar, Literal

import annotated_types
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo


class MethodParams(BaseModel):
    """The parameters of a method, and the version of the answer they give.

    Strict: an integer parameter refuses 2.5 and `true`, a number refuses "0.1", a flag refuses 1; numbers
    are finite; unknown names are refused. A field holding a sequence takes a YAML list
    (`Annotated[tuple[int, ...], Field(strict=False)]`). Bump `version` whenever the method's code
    changes its answer: it enters every run key.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)
    version: ClassVar[str] = "1"


def defaults(model: type[MethodParams]) -> dict[str, Any]:
    """Each parameter's default as declared (None for a required one): with the suite's values, what a run
    key hashes. The declared values, not validated copies, so keys planned before declarations hold."""
    return {name: None if field.is_required() else field.default for name, field in model.model_fields.items()}


def describe(field: FieldInfo) -> str:
    """What a parameter takes, for an error's hint: 'an integer >= 1 (default 32)'."""
    bounds = [f"{symbol} {getattr(m, attr)}" for m in field.metadata
              for attr, symbol in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="))
              if isinstance(m, annotated_types.BaseMetadata) and hasattr(m, attr)]
    default = "required" if field.is_required() else f"default {_yaml(field.default)}"
    return " ".join([_kind(field.annotation), " and ".join(bounds)]).strip() + f" ({default})"


_EXPECTED = {"int_type": "an integer", "float_type": "a number", "bool_type": "true or false",
             "string_type": "a string", "finite_number": "a finite number", "tuple_type": "a list"}
_BOUNDS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}


def problem(model: type[MethodParams], error: ValidationError) -> tuple[str | None, str]:
    """The first problem of a failed validation: the parameter (None for a rule across parameters) and
    what is wrong with it, e.g. ('lr', 'lr must be > 0, got -0.1')."""
    first = error.errors(include_url=False)[0]
    loc, kind, context = first["loc"], first["type"], first.get("ctx", {})
    name = str(loc[0]) if loc else None
    reason = str(first["msg"]).removeprefix("Value error, ")
    if name not in model.model_fields:
        return None, reason
    if kind == "missing":
        return name, f"{name} is required"
    where = name + "".join(f"[{part}]" for part in loc[1:] if isinstance(part, int))
    bounds = [f"{symbol} {context[key]}" for key, symbol in _BOUNDS.items() if key in context]
    if bounds:
        expected = " and ".join(bounds)
    elif kind == "literal_error":
        expected = context["expected"]
    elif kind in _EXPECTED:
        expected = _kind(model.model_fields[name].annotation) if len(loc) == 1 else _EXPECTED[kind]
    else:
        return name, f"{where}: {reason}"
    return name, f"{where} must be {expected}, got {_yaml(first['input'])}"


def _kind(annotation: Any) -> str:
    """An annotation in words: 'an integer', 'one of mean, max', 'a list of numbers', '... or null'."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _kind(args[0])
    if origin is Literal:
        return "one of " + ", ".join(_yaml(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_kind(a) for a in args)
    if origin in (tuple, list):
        return "a list of " + _plural(_kind(args[0]))
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string",
            type(None): "null"}.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _plural(kind: str) -> str:
    return {"an integer": "integers", "a number": "numbers", "a string": "strings",
            "true or false": "flags"}.get(kind, kind)


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
    from harness.errors import RegistryError
    from harness.registry import load_target, methods

    entry = methods.entry(method)
    if "params" not in entry.meta:
        return entry.load().params_model
    model = load_target(entry.meta["params"])
    if not (isinstance(model, type) and issubclass(model, MethodParams)):
        raise RegistryError(f"'{method}' is registered with params {model!r}, not a MethodParams subclass",
                            field=method, hint="Point `params=` at the method's pydantic parameter model.")
    return model
