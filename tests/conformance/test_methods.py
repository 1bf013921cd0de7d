"""Every registered method, read from the registry: it declares valid tiny parameters and a task to run on, runs
on that task's tiny instance to a finite result, and returns the same answer when the hidden test labels its
inputs carry are randomised (benchopt's solver conformance tests, for each family a task's `tiny_instance`).

A new family gets these tests by registering its methods: its tasks need `tiny_instance` (and
`hide_test_labels` where their inputs carry test labels), its parameter models a `tiny` dict.
"""
from __future__ import annotations

import copy
import functools
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness import Instance, Method, RunContext, Task
from harness.extras import family_unavailable
from harness.method_params import declared_params, validate
from harness.registry import methods, tasks

SEED = 0


def served_tasks(method: str) -> list[str]:
    """The tasks a method is registered for, in registration order."""
    served = methods.entry(method).meta.get("task")
    return [served] if isinstance(served, str) else list(served or ())


def has_tiny_instance(task: str) -> bool:
    return type(tasks.get(task)()).tiny_instance is not Task.tiny_instance


def tiny_tasks(method: str) -> list[str]:
    """The tasks the method serves that have a tiny instance."""
    return [task for task in served_tasks(method) if has_tiny_instance(task)]


def _is_optional(exc: ModuleNotFoundError) -> bool:
    """Whether the missing module is an optional extra's (peft, rdkit, stable-baselines3, ...), not one of ours."""
    return bool(exc.name) and exc.name.split(".")[0] not in {"harness", "methods", "kernels", "tests"}


def unavailable(method: str) -> list:  # noqa: ANN201 (pytest marks)
    """A skip mark naming the extra to install when the method's family's extra is absent, before anything of
    the family is imported; none otherwise."""
    reason = family_unavailable(method.split(".", 1)[0])
    return [pytest.mark.skip(reason=reason)] if reason else []


def runs() -> list:  # noqa: ANN201 (pytest params)
    """(method, task) for every registered method and each of its tasks with a tiny instance; slow where the task
    says a tiny run trains or loads a model. A method with none still gets a case, which fails and says why; one
    whose family's extra is absent, or whose task needs an optional package that is absent, gets a case that
    skips, saying which."""
    cases = []
    for method in methods.names():
        if skip := unavailable(method):
            cases.append(pytest.param(method, None, id=f"{method}-needs-its-extra", marks=skip))
            continue
        try:
            served = tiny_tasks(method)
        except ModuleNotFoundError as exc:
            if not _is_optional(exc):
                raise
            cases.append(pytest.param(method, None, id=f"{method}-needs-{exc.name}",
                                      marks=pytest.mark.skip(reason=f"needs the optional package {exc.name}")))
            continue
        for task in served or [None]:
            slow = task is not None and tasks.get(task).tiny_instance_is_slow
            cases.append(pytest.param(method, task, id=f"{method}-{task}", marks=[pytest.mark.slow] if slow else []))
    return cases


@pytest.fixture(autouse=True)
def one_thread(monkeypatch, tmp_path_factory):
    """One torch thread (runs repeat exactly), and a model cache of the session's own for tiny models."""
    monkeypatch.setenv("HARNESS_MODEL_CACHE", str(tmp_path_factory.getbasetemp() / "conformance-models"))
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("method", [pytest.param(name, marks=unavailable(name)) for name in methods.names()])
def test_method_declares_valid_tiny_parameters_and_a_task_with_a_tiny_instance(method):
    try:
        cls = methods.get(method)  # the registry checks the class: a Method, its params_model the registered one
        served_with_tiny_instance = tiny_tasks(method)
    except ModuleNotFoundError as exc:
        _skip_without_optional_packages(exc)
    model = declared_params(method)
    validate(model, dict(model.tiny))
    assert isinstance(cls(**model.tiny), Method)
    assert served_tasks(method), f"{method} is registered without task=...: say which task(s) it solves"
    assert served_with_tiny_instance, (
        f"no task that {method} serves ({', '.join(served_tasks(method))}) has a tiny instance: give one of "
        f"them a `tiny_instance(seed)` (harness.contracts.Task), so its methods are run by the conformance tests")


@functools.cache
def _tiny_instance(task: str) -> Instance:
    return tasks.get(task)().tiny_instance(SEED)


def _solve(method: str, inputs: Any) -> Any:
    """One run as a worker does it: everything seeded, one thread, on the CPU, on a copy of the inputs (a method
    that changed them would change the other methods' instance)."""
    inputs = copy.deepcopy(inputs)
    random.seed(SEED)
    np.random.seed(SEED)
    try:
        import torch

        torch.manual_seed(SEED)
    except ImportError:
        pass
    model = declared_params(method)
    return methods.get(method)(**model.tiny).run(inputs, RunContext(seed=SEED, device="cpu", threads=1))


def _skip_without_optional_packages(exc: ModuleNotFoundError) -> None:
    """An optional extra absent (peft, sentence-transformers, ...) skips the test; a missing module of ours fails."""
    if _is_optional(exc):
        pytest.skip(f"needs the optional package {exc.name}")
    raise exc


@pytest.mark.parametrize("method, task_name", runs())
def test_method_runs_to_a_finite_result_blind_to_hidden_test_labels(method, task_name):
    if task_name is None:
        pytest.fail(f"{method} has no task with a tiny instance (see the parameters test for what to add)")
    task = tasks.get(task_name)()
    try:
        instance = _tiny_instance(task_name)
        predictions = task.predictions(instance, _solve(method, instance.inputs))
        hidden = task.hide_test_labels(instance.inputs, np.random.default_rng(SEED + 1))
        blind = None if hidden is instance.inputs else task.predictions(instance, _solve(method, hidden))
    except ModuleNotFoundError as exc:
        _skip_without_optional_packages(exc)
    assert len(predictions), f"{method} on {task_name}'s tiny instance: no predictions"
    task.score(instance, task.checked(instance, predictions), {})  # the table fits its schema; the task scores it
    # A column of NaN is a descriptor that does not apply (a synthetic teacher's temperature); a method's own
    # numbers are finite.
    numbers = predictions.select_dtypes("number").dropna(axis="columns", how="all")
    assert np.isfinite(numbers.to_numpy(dtype=float)).all(), (
        f"{method} on {task_name}'s tiny instance: predictions are not finite\n{predictions.head()}")
    if blind is not None and not methods.get(method).reads_hidden_labels:
        pd.testing.assert_frame_equal(blind, predictions, obj=f"{method}'s predictions with test labels hidden")


def test_a_method_whose_tasks_have_no_tiny_instance_fails_saying_what_to_add():
    """The toy family (tests/plugins) registers methods for a task without `tiny_instance`: as a new family
    would, it gets the conformance tests, and they fail naming the hook."""
    from harness.registry import load_plugin_file
    from tests.conftest import TOY_PLUGIN

    load_plugin_file(TOY_PLUGIN)
    with pytest.raises(AssertionError, match=r"toy\.sign\) has a tiny instance: give one of them a `tiny_instance"):
        test_method_declares_valid_tiny_parameters_and_a_task_with_a_tiny_instance("toy.threshold")
    with pytest.raises(NotImplementedError, match=r"SignTask has no tiny instance: give it a `tiny_instance\(seed\)`"):
        tasks.get("toy.sign")().tiny_instance(SEED)
