"""The optimisation tasks: source molecules drawn per seed from the MOSES test set, each with a reference answer
(`references`) from a pool of MOSES-train molecules, and training tasks drawn from further MOSES-train molecules
(disjoint from the pool) for the learning methods. Sources without a reference in the pool are skipped, so the
generated tasks favour molecules with a close, improving neighbour: every task is solvable at its delta."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import DataError
from harness.loader_arguments import whole_number
from methods.molecule_opt.byo import read_prompts
from methods.molecule_opt.moses import moses_smiles
from methods.molecule_opt.objectives import Objectives, OptTask, objectives_text, parse_objectives
from methods.molecule_opt.references import Pool, nearest_reference, reference_pool

TRAIN_SOURCES = 20_000  # MOSES-train molecules after the pool that training tasks are drawn from
TEST_STREAM, TRAIN_STREAM = 0, 1


@dataclass(frozen=True)
class TaskSource:
    """What a loader returns: how to draw the tasks, or the user's fixed ones."""

    objectives: Objectives
    delta: float
    count: int
    pool_size: int
    train_objectives: tuple[Objectives, ...]
    fixed: tuple[OptTask, ...] | None = None  # a prompts file's tasks, the same for every seed

    def pool(self) -> Pool:
        return reference_pool(self.pool_size)


def draw_tasks(source: TaskSource, seed: int, stream: int, count: int, objectives: tuple[Objectives, ...]
               ) -> list[OptTask]:
    """`count` tasks of seed `seed` (cycling through `objectives`), each with its reference; the test stream
    draws MOSES-test sources, the training stream MOSES-train ones after the pool."""
    from methods.molecule_opt.chem import profile  # RDKit on use: validating needs no extra

    smiles = (moses_smiles("test") if stream == TEST_STREAM
              else moses_smiles("train", source.pool_size + TRAIN_SOURCES)[source.pool_size:])
    rng = np.random.default_rng([seed, stream, len(smiles)])
    tasks: list[OptTask] = []
    for index in rng.permutation(len(smiles)):
        wanted = objectives[len(tasks) % len(objectives)]
        mol = profile(smiles[index])
        reference = None if mol is None else nearest_reference(mol, wanted, source.delta, source.pool())
        if mol is not None and reference is not None:
            name = f"{objectives_text(wanted)}-s{seed}-{'test' if stream == TEST_STREAM else 'train'}-{len(tasks):04d}"
            tasks.append(OptTask(name, mol.smiles, wanted, source.delta, reference))
        if len(tasks) == count:
            return tasks
    raise DataError(f"only {len(tasks)} of {count} sources have a reference at delta {source.delta}",
                    field="args.count", hint="Lower count or delta, or enlarge pool_size.")


def seed_tasks(source: TaskSource, seed: int) -> list[OptTask]:
    if source.fixed is not None:
        return list(source.fixed)
    return draw_tasks(source, seed, TEST_STREAM, source.count, (source.objectives,))


def _delta(delta: float) -> float:
    if isinstance(delta, bool) or not isinstance(delta, int | float) or not 0.0 <= delta < 1.0:
        raise DataError(f"delta must be a similarity in [0, 1), got {delta!r}", field="args.delta")
    return float(delta)


def moses_tasks(objective: str = "qed+", delta: float = 0.4, count: int = 50, pool_size: int = 10_000,
                train_objectives: list[str] | None = None) -> TaskSource:
    """Tasks "improve `objective` with similarity >= `delta`" over `count` MOSES-test sources per seed, references
    from the first `pool_size` MOSES-train molecules; the learning methods train on `train_objectives` (default:
    the test objective; others make it unseen). To score your own model on them, `export` them as a prompts
    file and use `prompts_file`."""
    objectives = parse_objectives(objective)
    trained = tuple(parse_objectives(text, "args.train_objectives") for text in train_objectives or [objective])
    return TaskSource(objectives, _delta(delta), whole_number(count, "args.count"),
                      whole_number(pool_size, "args.pool_size"), trained)


def prompts_file(path: str | Path, delta: float = 0.4, pool_size: int = 10_000) -> TaskSource:
    """Your own tasks (a TOMG-Bench MolOpt / MuMO prompt set as JSONL: id, source, objective[, delta]); your
    model's answers to them are a suite's `predictions:` file (task, smiles), scored offline."""
    tasks = read_prompts(Path(path), _delta(delta))
    first = tasks[0].objectives
    return TaskSource(first, tasks[0].delta, len(tasks), whole_number(pool_size, "args.pool_size"), (first,),
                      tuple(tasks))
