"""Generated tasks: MOSES-test sources taken as drawn (with or without a reference), references that satisfy the
constraint, training and validation sources disjoint from each other and the test set; a missing molsets is a
clear error."""
from __future__ import annotations

import importlib.util

import pytest

from harness import DataError

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from methods.molecule_opt.data import moses_tasks, seed_tasks  # noqa: E402
from methods.molecule_opt.moses import moses_file  # noqa: E402
from methods.molecule_opt.scored import task_outcome  # noqa: E402
from methods.molecule_opt.task import MoleculeOptimisation  # noqa: E402


def test_test_sources_are_not_filtered_to_solvable_ones_and_each_reference_solves_its_task():
    source = moses_tasks("qed+,logp+", delta=0.5, count=12, pool_size=3000)
    first, second = seed_tasks(source, 0), seed_tasks(source, 1)
    assert len(first) == 12 and {t.source for t in first}.isdisjoint(t.source for t in second)
    assert any(t.reference is None for t in first)  # kept: the nearest reference fails there
    for task in (t for t in first if t.reference is not None):
        outcome = task_outcome(task, task.reference)
        assert outcome.constrained(0.5) and outcome.similarity < 1.0


def test_the_instance_hides_references_and_training_tasks_come_from_moses_train():
    instance = MoleculeOptimisation().instance(moses_tasks("qed+", 0.3, 3, pool_size=3000), {}, 0)
    assert all(t.reference is None for t in instance.inputs.tasks)
    training, validation = instance.inputs.training_tasks(4), instance.inputs.validation_tasks(4)
    assert all(t.reference is not None for t in training)
    test = {t.source for t in instance.truth.values()}
    assert {t.source for t in training}.isdisjoint(test) and {t.source for t in validation}.isdisjoint(test)
    assert {t.source for t in training}.isdisjoint(t.source for t in validation)


def test_without_molsets_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(DataError, match="pip install --no-deps molsets"):
        moses_file("train")


@pytest.mark.parametrize(("args", "field"), [({"delta": 1.5}, "args.delta"), ({"objective": "qed"}, "args.objective"),
                                             ({"count": 0}, "args.count")])
def test_bad_loader_arguments_name_their_field(args, field):
    with pytest.raises(DataError) as error:
        moses_tasks(**args)
    assert error.value.field == field
