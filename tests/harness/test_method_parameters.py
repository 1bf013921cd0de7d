"""The planner reads a method's parameters from its constructor, base classes included
when a constructor forwards **kwargs to them."""
from __future__ import annotations

from harness.planner import _constructor_defaults, _takes_kwargs


class Base:
    def __init__(self, lr: float = 0.01, epochs: int = 100) -> None:
        self.lr, self.epochs = lr, epochs


class Forwarding(Base):
    def __init__(self, beta: float = 1.0, **training: object) -> None:
        super().__init__(**training)
        self.beta = beta


class Inheriting(Base):
    pass


class Open:
    def __init__(self, required: int, **anything: object) -> None:
        self.required = required


def test_forwarded_kwargs_resolve_to_the_base_parameters_with_defaults():
    assert _constructor_defaults(Forwarding) == {"beta": 1.0, "lr": 0.01, "epochs": 100}
    assert not _takes_kwargs(Forwarding)


def test_a_subclass_without_a_constructor_has_its_base_parameters():
    assert _constructor_defaults(Inheriting) == {"lr": 0.01, "epochs": 100}
    assert not _takes_kwargs(Inheriting)


def test_kwargs_that_reach_no_base_constructor_accept_any_name():
    assert _constructor_defaults(Open) == {"required": None}
    assert _takes_kwargs(Open)
