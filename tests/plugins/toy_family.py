"""A tiny family for testing the engine without torch: classify numbers by their sign.

Besides a real method (`toy.threshold`), it has methods that misbehave on purpose
(raise, hang, crash, exhaust memory, take a while) so the executors' isolation can be
tested for real. Loaded with `--plugin tests/plugins/toy_family.py`.
"""
from __future__ import annotations

import os
import signal
import time
from typing import Annotated

import numpy as np

from pydantic import Field

from harness import Instance, Method, MethodParams, Metric, Task, datasets, methods, metrics, tasks
from harness.predictions_schema import Column, PredictionsSchema


class SignTask(Task):
    predictions_schema = PredictionsSchema((Column("sample", "integer"), Column("score", "number")), sample="sample",
                                           other_samples_ok=True)

    def test_samples(self, instance):
        return instance.truth[0]

    def check_split(self, split):
        if set(split) - {"test_fraction"}:
            raise ValueError(f"unknown split key(s) {sorted(set(split) - {'test_fraction'})}; allowed: test_fraction")

    def instance(self, data, split, seed):
        rng = np.random.default_rng(seed)
        test = rng.random(data.size) < split.get("test_fraction", 0.5)
        return Instance(inputs=data, truth=(np.flatnonzero(test), data[test] > 0))

    def predictions(self, instance, output):
        test_idx, _ = instance.truth
        import pandas as pd  # in the worker only: a coordinator that loads this plugin stays as light as a family's

        return pd.DataFrame({"sample": test_idx, "score": np.asarray(output, dtype=float)[test_idx]})

    def score(self, instance, predictions, metric_objects):
        test_idx, truth = instance.truth
        samples, scores = predictions["sample"].to_numpy(), predictions["score"].to_numpy()
        order = np.argsort(samples)  # numpy, not pandas' set_index/loc: a fifth of a no-op run's cost
        found = order[np.searchsorted(samples, test_idx, sorter=order)]  # the schema's check: every sample, once
        return {name: metric(truth, scores[found]) for name, metric in metric_objects.items()}


def numbers(n: int = 200, shift: float = 0.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(shift, 1.0, n)


def numbers_file(path: str) -> np.ndarray:
    return np.loadtxt(path)


class ThresholdParams(MethodParams):
    t: float = 0.0
    noise: float = Field(0.0, ge=0)


class Threshold(Method):
    params_model = ThresholdParams

    def run(self, inputs, ctx):
        ctx.record("samples", inputs.size, "count")
        print("threshold method writes to stdout")
        return inputs - self.params.t + self.params.noise * np.random.normal(size=inputs.size)


class Noop(Method):
    """`threshold` without its print: the peer comparison's no-op (benchopt's and asv's write nothing either)."""

    params_model = ThresholdParams

    def run(self, inputs, ctx):
        return inputs - self.params.t


class VoteParams(MethodParams):
    thresholds: Annotated[tuple[float, ...], Field(strict=False, min_length=1)] = (0.0,)


class Vote(Method):
    """Scores each number by the share of `thresholds` it exceeds, minus one half: a parameter that is a list."""

    params_model = VoteParams

    def run(self, inputs, ctx):
        return np.mean([inputs > t for t in self.params.thresholds], axis=0) - 0.5


class Fail(Method):
    def run(self, inputs, ctx):
        raise ValueError("this method always fails")


class Hang(Method):
    def run(self, inputs, ctx):
        time.sleep(3600)


class Segfault(Method):
    def run(self, inputs, ctx):
        os.kill(os.getpid(), signal.SIGSEGV)


class ExhaustMemory(Method):
    def run(self, inputs, ctx):
        return np.ones(1 << 50)


class SlowParams(MethodParams):
    seconds: float = 0.5


class Slow(Method):
    params_model = SlowParams

    def run(self, inputs, ctx):
        time.sleep(self.params.seconds)
        return inputs


def accuracy(truth, scores):
    return 100.0 * float(np.mean((np.asarray(scores) > 0) == truth))


tasks.add("toy.sign", SignTask, "classify numbers by sign")
datasets.add("toy.numbers", numbers, "normal numbers")
datasets.add("toy.numbers_file", numbers_file, "numbers from a text file")
metrics.add("toy.accuracy", Metric("accuracy", accuracy, higher_is_better=True), "accuracy x100")
for name, cls in {"threshold": Threshold, "noop": Noop, "vote": Vote, "fail": Fail, "hang": Hang, "segfault": Segfault,
                  "oom": ExhaustMemory, "slow": Slow}.items():
    methods.add(f"toy.{name}", cls, f"toy method {name}", task="toy.sign")


class KillSelf(Method):
    def run(self, inputs, ctx):
        os.kill(os.getpid(), signal.SIGKILL)


methods.add("toy.selfkill", KillSelf, "toy method that SIGKILLs its worker", task="toy.sign")


class VisibleDevices(Method):
    """Records the CUDA_VISIBLE_DEVICES its worker was started with (-1 when unset); takes 0.3 s
    so that every worker of a pool gets runs."""

    def run(self, inputs, ctx):
        time.sleep(0.3)
        ctx.record("cuda_visible_devices", float(os.environ.get("CUDA_VISIBLE_DEVICES", -1)))
        return inputs


methods.add("toy.visible_devices", VisibleDevices, "toy method that reports its GPU pinning", task="toy.sign")


class HoldMemoryParams(MethodParams):
    mb: int = 512
    seconds: float = 0.0


class HoldMemory(Method):
    """Makes `mb` megabytes resident (np.ones writes every page), holds them `seconds`, then returns."""

    params_model = HoldMemoryParams

    def run(self, inputs, ctx):
        block = np.ones(self.params.mb * 2**20, dtype=np.uint8)
        time.sleep(self.params.seconds)
        return inputs * block[0]


class ChattyParams(MethodParams):
    mb: int = 12


class Chatty(Method):
    """Prints `mb` megabytes of numbered 1 KiB lines, so a capped log shows which lines it kept."""

    params_model = ChattyParams

    def run(self, inputs, ctx):
        for line in range(self.params.mb * 1024):
            print(f"line {line:08d} " + "x" * 1009)
        return inputs


methods.add("toy.hold_memory", HoldMemory, "toy method that holds resident memory", task="toy.sign")
methods.add("toy.chatty", Chatty, "toy method that prints megabytes", task="toy.sign")


class SpawnAndHang(Method):
    """Starts a sleeping subprocess, prints its pid, and hangs: its timeout must take the subprocess too."""

    def run(self, inputs, ctx):
        import subprocess
        import sys

        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"subprocess pid {child.pid}", flush=True)
        time.sleep(3600)


methods.add("toy.spawn_and_hang", SpawnAndHang, "toy method whose subprocess outlives it unless killed",
            task="toy.sign")
