"""Every neural-encoding method's parameters: types, ranges and defaults. Torch-free, so `harness validate`
and `harness plan` check a suite without importing a method."""
from __future__ import annotations

from pydantic import Field, field_validator

from harness import MethodParams
from methods.neural_encoding.columns import BY_NAME


class TrainingParams(MethodParams):
    """Adam on mini-batches of one session's trials."""

    steps: int = Field(600, ge=1)
    batch: int = Field(16, ge=1)
    lr: float = Field(3e-3, gt=0)
    train_sessions: int | None = Field(None, ge=1, description="train on the first k sessions (default: all): the "
                                                             "data axis of the scaling study")


class OmniMouseParams(TrainingParams):
    """The masked transformer; `columns` restricts the training mask mixture (and the columns predicted) to a
    per-task specialist; default: all seven, one multi-task model."""

    tiny = {"steps": 5, "width": 8}
    width: int = Field(32, ge=4)
    depth: int = Field(2, ge=1)
    heads: int = Field(4, ge=1)
    columns: list[str] | None = None

    @field_validator("columns")
    @classmethod
    def _known_columns(cls, names: list[str] | None) -> list[str] | None:
        bad = [name for name in names or () if name not in BY_NAME]
        if bad:
            raise ValueError(f"unknown column {bad[0]!r}; the columns are {', '.join(BY_NAME)}")
        if names is not None and not names:
            raise ValueError("columns is empty; leave it out for all seven")
        return names


class CNNParams(TrainingParams):
    """The Sensorium-style core: `channels` feature maps, a per-session factorised readout."""

    tiny = {"steps": 5}
    steps: int = Field(200, ge=1)
    channels: int = Field(8, ge=1)


class RidgeParams(MethodParams):
    alphas: list[float] = Field([1.0, 10.0, 100.0, 1000.0], min_length=1,
                                description="ridge penalties, chosen per column and session by leave-one-out CV")
