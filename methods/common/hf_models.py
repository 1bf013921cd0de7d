"""A local Hugging Face model folder made ready for lm-eval's hf backend (`prepare_model`), and lm-eval kept
offline (`offline`): shared by math_reasoning's lm-eval route and lm_eval_tasks."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import DataError

_TOKENIZER_FILE_SETS = (("tokenizer.json",), ("tokenizer.model",), ("vocab.json", "merges.txt"), ("vocab.txt",))
_TOKENIZER_FILES = {
    "tokenizer.json", "tokenizer.model", "vocab.json", "merges.txt", "vocab.txt",
    "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
}
_EOS_CANDIDATES = ("</s>", "<|endoftext|>", "<eos>", "<|im_end|>", "[SEP]")


@dataclass(frozen=True)
class PreparedModel:
    """The folder lm-eval loads, and the special tokens set because the tokenizer lacked them."""

    path: Path
    patched: dict[str, str] = field(default_factory=dict)


def prepare_model(model_dir: Path, scratch: Path) -> PreparedModel:
    """Check a local model's tokenizer before lm-eval sees it, patching missing special tokens.

    lm-eval's hf backend needs eos (the default stop sequence and padding) and falls back to it for
    bos and pad. A tokenizer without eos is given one of its own vocabulary tokens (a new token would
    lie outside the model's embedding); bos and pad then default to eos. The patched tokenizer goes
    into a view of `model_dir` under `scratch` (links to the weights), so the user's folder is untouched.
    """
    model_dir = Path(model_dir).resolve()
    if not (model_dir / "config.json").is_file():
        raise DataError("not a Hugging Face model folder (no config.json)", file=model_dir,
                        hint="Save the model with model.save_pretrained(folder).")
    present = {path.name for path in model_dir.iterdir()}
    if not any(set(files) <= present for files in _TOKENIZER_FILE_SETS):
        wanted = " or ".join("+".join(files) for files in _TOKENIZER_FILE_SETS)
        raise DataError(f"no tokenizer files: missing {wanted}", file=model_dir,
                        hint="Save the tokenizer into the model folder with tokenizer.save_pretrained(folder).")
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    patched: dict[str, str] = {}
    if tokenizer.eos_token is None:
        vocabulary = tokenizer.get_vocab()
        candidates = [token for token in _EOS_CANDIDATES if token in vocabulary]
        candidates += [token for token in (tokenizer.pad_token, tokenizer.unk_token) if token is not None]
        if not candidates:
            raise DataError("the tokenizer has no end-of-sequence token and no candidate in its vocabulary",
                            file=model_dir, field="eos_token",
                            hint=f"Add one of {list(_EOS_CANDIDATES)} to the vocabulary and set it as eos_token.")
        patched["eos_token"] = candidates[0]
    eos = patched.get("eos_token", tokenizer.eos_token)
    for role in ("bos_token", "pad_token"):
        if getattr(tokenizer, role) is None:
            patched[role] = eos
    if not patched:
        return PreparedModel(path=model_dir)
    for role, token in patched.items():
        setattr(tokenizer, role, token)
    view = Path(tempfile.mkdtemp(prefix="model-view-", dir=scratch))
    for entry in model_dir.iterdir():
        if entry.name not in _TOKENIZER_FILES:
            (view / entry.name).symlink_to(entry)
    tokenizer.save_pretrained(str(view))
    return PreparedModel(path=view, patched=patched)


@contextmanager
def offline() -> Iterator[None]:
    """No downloads while lm-eval runs; set before lm-eval imports datasets and transformers, which read
    these variables once. A process that imported them earlier must set the variables itself."""
    names = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")
    before = {name: os.environ.get(name) for name in names}
    os.environ.update({name: "1" for name in names})
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
