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
    """The masked transformer; `specialist` names the one column a per-task specialist trains on (and predicts);
    default: all seven masks, one multi-task model."""

    tiny = {"steps": 5, "width": 8}
    width: int = Field(32, ge=4)
    depth: int = Field(2, ge=1)
    heads: int = Field(4, ge=1)
    specialist: str | None = None

    @field_validator("specialist")
    @classmethod
    def _known_column(cls, name: str | None) -> str | None:
        if name is not None and name not in BY_NAME:
            raise ValueError(f"unknown column {name!r}; the columns are {', '.join(BY_NAME)}")
        return name


class CNNParams(TrainingParams):
    """The Sensorium-style core: `channels` feature maps, a per-session factorised readout."""

    tiny = {"steps": 5}
    steps: int = Field(200, ge=1)
    channels: int = Field(8, ge=1)


class RidgeParams(MethodParams):
    alphas: list[float] = Field([1.0, 10.0, 100.0, 1000.0], min_length=1,
                                description="ridge penalties, chosen per column and session by leave-one-out CV")
