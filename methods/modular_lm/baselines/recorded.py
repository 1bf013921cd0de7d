"""Recorded: a user's generations from the byo dataset's JSONL, returned as the `full` condition and scored by
the same checkers as the generated domains (no model runs)."""
from __future__ import annotations

from harness import DataError, Method, RunContext
from methods.modular_lm.inputs import Answer, ModularInputs


class Recorded(Method):
    def run(self, inputs: ModularInputs, ctx: RunContext) -> list[Answer]:
        if inputs.recorded is None:
            raise DataError("'recorded' replays your generations: run it on the byo dataset (a JSONL path)",
                            field="datasets")
        return [Answer("full", e.id, inputs.recorded[e.id]) for e in inputs.examples]
