"""The optimisation tasks: source molecules drawn per seed from the MOSES test set, each with its reference answer
(`references`: the closest pool molecule that satisfies it, None when the pool holds none), training tasks drawn
from further MOSES-train molecules (disjoint from the pool) for the learning methods, and validation tasks from
MOSES-train molecules after those (for learning curves: never the test set). Test and validation sources are
taken as drawn, with or without a reference, so the `nearest` reference fails where the pool has no improving
neighbour; training sources without a reference are skipped, as SFT and DePO need one."""
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
VALID_SOURCES = 10_000  # MOSES-train molecules after those that validation tasks are drawn from
TEST_STREAM, TRAIN_STREAM, VALID_STREAM = 0, 1, 2
STREAM_NAMES = {TEST_STREAM: "test", TRAIN_STREAM: "train", VALID_STREAM: "valid"}


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


def stream_smiles(pool_size: int, stream: int) -> tuple[str, ...]:
    """The molecules a stream draws from: MOSES-test for the test stream, disjoint MOSES-train ranges after the
    reference pool for the training and validation streams."""
    if stream == TEST_STREAM:
        return moses_smiles("test")
    start = pool_size + (TRAIN_SOURCES if stream == VALID_STREAM else 0)
    end = start + (VALID_SOURCES if stream == VALID_STREAM else TRAIN_SOURCES)
    return moses_smiles("train", pool_size + TRAIN_SOURCES + VALID_SOURCES)[start:end]


def draw_tasks(source: TaskSource, seed: int, stream: int, count: int, objectives: tuple[Objectives, ...]
               ) -> list[OptTask]:
    """`count` tasks of seed `seed` (cycling through `objectives`), each with its reference (None when the pool
    holds none: skipped in the training stream only)."""
    from methods.molecule_opt.chem import profile  # RDKit on use: validating needs no extra

    smiles = stream_smiles(source.pool_size, stream)
    rng = np.random.default_rng([seed, stream, len(smiles)])
    tasks: list[OptTask] = []
    for index in rng.permutation(len(smiles)):
        wanted = objectives[len(tasks) % len(objectives)]
        mol = profile(smiles[index])
        reference = None if mol is None else nearest_reference(mol, wanted, source.delta, source.pool())
        if mol is not None and (reference is not None or stream != TRAIN_STREAM):
            name = f"{objectives_text(wanted)}-s{seed}-{STREAM_NAMES[stream]}-{len(tasks):04d}"
            tasks.append(OptTask(name, mol.smiles, wanted, source.delta, reference))
        if len(tasks) == count:
            return tasks
    raise DataError(f"only {len(tasks)} of {count} training sources have a reference at delta {source.delta}",
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
