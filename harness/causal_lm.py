"""Loading a local Hugging Face causal LM and its tokenizer, offline, with errors that name the folder.

Every family that runs a language model (the sparse-attention, zeroth-order and math-reasoning families)
takes either its own prepared tiny model or any folder written by `save_pretrained`; this is the one place
that checks such a folder and loads it. transformers is imported on call, so the harness starts fast.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import DataError

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")


def load_causal_lm(path: str | Path, dtype: Any = "float32", field: str = "args.model.path") -> tuple[Any, Any]:
    """The model in eval mode (`dtype`: a torch dtype or its name) and its tokenizer; never reaches a hub."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(path)
    if not path.is_dir():
        raise DataError(f"model folder {path} does not exist", file=path, field=field,
                        hint="Give a local folder written by save_pretrained (config.json, weights, tokenizer).")
    if not (path / "config.json").is_file():
        raise DataError(f"model folder {path} has no config.json: it is not a Hugging Face model folder", file=path,
                        field=field)
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        raise DataError(f"model folder {path} has no tokenizer (none of {', '.join(TOKENIZER_FILES)})", file=path,
                        field=field, hint="Save the tokenizer beside the weights: tokenizer.save_pretrained(folder).")
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, attn_implementation="sdpa",
                                                     local_files_only=True)
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(f"cannot load the model in {path}: {exc}", file=path, field=field) from None
    return model.eval(), tokenizer
