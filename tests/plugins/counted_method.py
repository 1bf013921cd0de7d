"""A toy method that leaves a trace of every execution: each appends one line (its seed) to a ledger file.

Tests count the lines to see how often each run was really executed, whatever the store says; loaded
after `toy_family.py`, whose task it solves.
"""
from __future__ import annotations

import os
import time

from harness import Method, MethodParams, methods


class CountedParams(MethodParams):
    ledger: str
    seconds: float = 0.05


class Counted(Method):
    params_model = CountedParams

    def run(self, inputs, ctx):
        time.sleep(self.params.seconds)
        fd = os.open(self.params.ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, f"{ctx.seed}\n".encode())  # one write under O_APPEND: lines never interleave
        finally:
            os.close(fd)
        return inputs


methods.add("toy.counted", Counted, "toy method that appends its seed to a ledger file per execution", task="toy.sign")
