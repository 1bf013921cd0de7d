"""Write generated tasks as a prompts file (JSONL: id, source, objective, delta) for your own model to answer;
score its answers as a `predictions:` file over the `prompts` dataset.
`python -m methods.molecule_opt.export qed+ prompts.jsonl`."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from methods.molecule_opt.data import moses_tasks, seed_tasks
from methods.molecule_opt.objectives import objectives_text


def export(objective: str, out: Path, seeds: list[int], count: int = 50, delta: float = 0.4,
           pool_size: int = 10_000) -> Path:
    source = moses_tasks(objective, delta, count, pool_size)
    with out.open("w", encoding="utf-8") as file:
        for seed in seeds:
            for task in seed_tasks(source, seed):
                file.write(json.dumps({"id": task.id, "source": task.source,
                                       "objective": objectives_text(task.objectives), "delta": task.delta}) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("objective", help="e.g. qed+ or qed+,plogp+")
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--delta", type=float, default=0.4)
    args = parser.parse_args(argv)
    print(export(args.objective, args.out, args.seeds, args.count, args.delta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
