"""What a task asks: one or more properties to raise or lower, and the similarity the answer must keep.

An objective is written `qed+` (raise QED) or `tpsa-` (lower TPSA); a multi-property task joins them with commas
(`qed+,plogp+`). The RDKit properties are `PROPERTIES` (scored in chem.py); `bbbp` and `ames` are ADMET-AI's (optional).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness import DataError

PROPERTIES = ("qed", "logp", "mr", "tpsa", "sa", "plogp")  # RDKit's, scored in chem.py
ADMET_PROPERTIES = {"bbbp": "BBB_Martins", "ames": "AMES"}  # our name -> ADMET-AI's column
KNOWN = (*PROPERTIES, *ADMET_PROPERTIES)


@dataclass(frozen=True)
class Objective:
    prop: str
    direction: Literal[1, -1]  # +1: raise, -1: lower

    def __str__(self) -> str:
        return f"{self.prop}{'+' if self.direction > 0 else '-'}"

    def gain(self, source: float, answer: float) -> float:
        """The change from `source` to `answer` in the requested direction (positive: improved)."""
        return self.direction * (answer - source)


Objectives = tuple[Objective, ...]


def parse_objectives(text: str, field: str = "args.objective") -> Objectives:
    """`qed+` or `qed+,plogp+` as objectives, a `DataError` naming `field` for anything else."""
    parsed = []
    for part in (p.strip() for p in str(text).split(",")):
        prop, sign = part[:-1], part[-1:]
        if sign not in ("+", "-") or prop not in KNOWN:
            raise DataError(f"{part!r} is not an objective", field=field,
                            hint=f"Write a property and + or -, e.g. qed+ or tpsa-; properties: {', '.join(KNOWN)}.")
        parsed.append(Objective(prop, 1 if sign == "+" else -1))
    if len({o.prop for o in parsed}) < len(parsed):
        raise DataError(f"{text!r} names a property twice", field=field)
    return tuple(parsed)


def objectives_text(objectives: Objectives) -> str:
    return ",".join(map(str, objectives))


@dataclass(frozen=True)
class OptTask:
    """Improve `objectives` of `source` keeping Tanimoto similarity >= `delta`; `reference` answers it."""

    id: str
    source: str
    objectives: Objectives
    delta: float
    reference: str | None = None
