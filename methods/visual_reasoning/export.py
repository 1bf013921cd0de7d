"""Write a puzzle set for your own model: one PNG per puzzle and a `puzzles.jsonl` of {id, image, prompt}, the
same puzzles a suite's dataset generates for those seeds. Your model's answers come back as the task's
predictions table, a file per seed that a suite's `predictions:` entry scores (README, "Bring your own model").

    python -m methods.visual_reasoning.export --task maze --difficulty easy --count 50 --seeds 0 1 2 --out DIR
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from methods.visual_reasoning.data import PuzzleSource, puzzles
from methods.visual_reasoning.puzzle import DIFFICULTIES, TASKS, png_bytes


def export(source: PuzzleSource, seeds: list[int], out: Path) -> Path:
    """The puzzles of `seeds` under `out` (images/<id>.png); returns the index file `out`/puzzles.jsonl."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    index = out / "puzzles.jsonl"
    with index.open("w", encoding="utf-8") as lines:
        for seed in seeds:
            for puzzle in puzzles(source, seed):
                image = Path("images") / f"{puzzle.id}.png"
                (out / image).write_bytes(png_bytes(puzzle.image))
                lines.write(json.dumps({"id": puzzle.id, "image": str(image), "prompt": puzzle.prompt}) + "\n")
    return index


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", choices=TASKS, required=True)
    parser.add_argument("--difficulty", choices=DIFFICULTIES, required=True)
    parser.add_argument("--count", type=int, default=50, help="puzzles per seed (the dataset's count)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print(export(PuzzleSource(args.task, args.difficulty, args.count), args.seeds, args.out))


if __name__ == "__main__":
    main()
