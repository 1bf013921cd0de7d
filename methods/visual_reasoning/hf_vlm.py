"""Answer an exported puzzle set with a local Hugging Face vision-language model, writing the task's predictions
table as JSONL, one file per seed, for a suite's `predictions:` entry. Optional: with no model folder given it
says so and does nothing (exit 0); it never downloads (`local_files_only`, and HF_HUB_OFFLINE is set before
transformers is imported).

    python -m methods.visual_reasoning.hf_vlm --model DIR --puzzles SET/puzzles.jsonl \
        --out "answers/mine/maze_easy/{seed}.jsonl"

The model is loaded with `AutoProcessor` and `AutoModelForImageTextToText` (Qwen2-VL, LLaVA, Idefics, ...) and
asked each puzzle's prompt beside its image through the processor's chat template; the first answer is greedy,
the others sampled, each scored by its mean token log-probability (for best-of-k).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness import DataError

Generate = Callable[[Path, str, bool], tuple[str, float]]  # (image, prompt, sample) -> (text, score)


def exported_puzzles(index: Path) -> Iterator[dict[str, Any]]:
    """The lines of an exported `puzzles.jsonl` (`export`), image paths made absolute."""
    for line in index.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            yield record | {"image": str(index.parent / record["image"])}


def answer_puzzles(generate: Generate, index: Path, samples: int) -> Iterator[dict[str, Any]]:
    """One predictions row per answer: `samples` per puzzle, the first greedy (no intermediate images)."""
    for puzzle in exported_puzzles(index):
        for sample in range(samples):
            text, score = generate(Path(puzzle["image"]), puzzle["prompt"], sample > 0)
            yield {"puzzle": puzzle["id"], "sample": sample, "answer": text, "score": score, "images": 0}


def write_answers(rows: Iterator[dict[str, Any]], out: str) -> list[Path]:
    """The rows as JSONL files: `out` with `{seed}` filled in from each puzzle's id (maze-easy-s3-0007: seed 3),
    as a suite's predictions template takes one file per seed; one file where `out` has no `{seed}`."""
    lines: dict[Path, list[str]] = {}
    for row in rows:
        seed = re.search(r"-s(\d+)-\d+$", row["puzzle"])
        if seed is None:
            raise DataError(f"'{row['puzzle']}' is not the id of an exported puzzle", field="--puzzles")
        path = Path(out.replace("{seed}", seed[1]))
        lines.setdefault(path, []).append(json.dumps(row) + "\n")
    for path, text in lines.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(text), encoding="utf-8")
    return list(lines)


def local_model(folder: Path, max_new_tokens: int, device: str) -> Generate:
    """A generate function over the model in `folder`; a `DataError` when it is not a local model folder."""
    if not (folder / "config.json").is_file():
        raise DataError(f"'{folder}' is not a local model folder (no config.json)", field="--model",
                        hint="Give the folder a save_pretrained call wrote; nothing is downloaded.")
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = AutoProcessor.from_pretrained(folder, local_files_only=True)
    model = AutoModelForImageTextToText.from_pretrained(folder, local_files_only=True)
    # transformers declares `to` through @wraps(nn.Module.to), whose stub takes the model as the first argument
    model = model.to(device).eval()  # type: ignore[arg-type]

    def generate(image: Path, prompt: str, sample: bool) -> tuple[str, float]:
        messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]
        text = processor.apply_chat_template(messages, add_generation_prompt=True)
        inputs = processor(images=[Image.open(image).convert("RGB")], text=[text], return_tensors="pt").to(device)
        with torch.no_grad():
            out = model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=sample,
                                 output_scores=True, return_dict_in_generate=True)
        new = out.sequences[0, inputs["input_ids"].shape[1]:]
        logp = model.compute_transition_scores(out.sequences, out.scores, normalize_logits=True)[0]
        return processor.decode(new, skip_special_tokens=True), float(logp.mean()) if len(logp) else 0.0

    return generate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="a local model folder; left out: skipped")
    parser.add_argument("--puzzles", type=Path, required=True, help="an exported puzzles.jsonl")
    parser.add_argument("--out", required=True, help="a JSONL path; {seed} in it makes one file per seed")
    parser.add_argument("--samples", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    if args.model is None:
        print("skipped: no local vision-language model given (--model DIR); nothing downloaded", file=sys.stderr)
        return 0
    try:
        generate = local_model(args.model, args.max_new_tokens, args.device)
        written = write_answers(answer_puzzles(generate, args.puzzles, args.samples), args.out)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    print("\n".join(map(str, written)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
