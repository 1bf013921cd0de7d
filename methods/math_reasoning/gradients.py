"""Per-example gradients of a student's response loss and their Rademacher projection, on CPU, for GRACE.

As in the authors' `GRACE/gradient_computation.py`: g(x, y) is the gradient, over every trainable parameter,
of the student's mean token NLL on the response tokens only (the prompt's labels are -100), with the text
"### Problem:\\n{x}\\n\\n### Solution:\\n" + y + eos; h = R·g/√D with R a d x D matrix of ±1 entries.

Differences from the released code, both for CPU:
- Gradients come from torch.func (`functional_call` + `vmap(grad)`) over right-padded mini-batches instead of
  one backward pass per example; right padding is exact for causal LMs (no earlier position attends to it, and
  padded positions are out of the loss). A model vmap cannot trace falls back to a per-example loop.
- The projection is a dense seeded float32 matrix, generated in column blocks, instead of TRAK's CUDA
  `fast_jl` kernel in bf16: the same distribution of R, not the same matrix.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    import torch

PROMPT_TEMPLATE = "### Problem:\n{question}\n\n### Solution:\n"
BLOCK_ENTRIES = 1 << 24  # entries of R generated at once: 64 MB as float32
CACHE_BYTES = 256 << 20  # R is kept between calls when it fits in this (as float32, else as int8)


@dataclass(frozen=True)
class ResponseExample:
    """A tokenised (prompt + response) sequence; tokens from `prompt_length` on are the response."""

    input_ids: tuple[int, ...]
    prompt_length: int


def grace_example(tokenizer, question: str, response: str) -> tuple[list[int], int]:  # noqa: ANN001
    """(input_ids, prompt_length) of the GRACE text: the whole text is tokenised at once and its first
    len(tokenise(prompt)) tokens are the prompt, as the authors' `tokenize_data.py` does."""
    prompt = PROMPT_TEMPLATE.format(question=question)
    eos = tokenizer.eos_token or ""
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    ids = tokenizer(prompt + response + eos, add_special_tokens=False)["input_ids"]
    return list(ids), len(prompt_ids)


def as_examples(examples: Iterable[ResponseExample | tuple[Sequence[int], int]]) -> list[ResponseExample]:
    """`ResponseExample`s from examples or (input_ids, prompt_length) pairs; each needs a response token."""
    out = []
    for i, example in enumerate(examples):
        if not isinstance(example, ResponseExample):
            ids, prompt_length = example
            example = ResponseExample(tuple(int(t) for t in ids), int(prompt_length))
        if not 1 <= example.prompt_length < len(example.input_ids):
            raise ValueError(f"example {i}: prompt_length {example.prompt_length} leaves no predicted response "
                             f"token in a sequence of {len(example.input_ids)}")
        out.append(example)
    return out


def _padded(examples: Sequence[ResponseExample]) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ids [B, L] and the response mask over next-token targets [B, L-1]."""
    import torch

    length = max(len(e.input_ids) for e in examples)
    ids = torch.zeros(len(examples), length, dtype=torch.long)
    mask = torch.zeros(len(examples), length - 1)
    for row, example in enumerate(examples):
        ids[row, :len(example.input_ids)] = torch.tensor(example.input_ids)
        mask[row, example.prompt_length - 1:len(example.input_ids) - 1] = 1.0  # targets at prompt_length..
    return ids, mask


@contextmanager
def _eval_mode(model: torch.nn.Module):
    """Dropout off for the gradients; the caller's train/eval flag is restored after."""
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


def _trainable(model: torch.nn.Module) -> tuple[dict, dict]:
    params = dict(model.named_parameters())
    trainable = {k: v.detach() for k, v in params.items() if v.requires_grad}
    frozen = {k: v.detach() for k, v in params.items() if not v.requires_grad}
    if not trainable:
        raise ValueError("the model has no trainable parameters")
    return trainable, frozen


def _response_loss(model: torch.nn.Module, params: dict, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean NLL of one sequence's response tokens (ids [L], mask [L-1]), as HF's loss with labels -100."""
    import torch
    from torch.func import functional_call

    logits = functional_call(model, params, args=(), kwargs={"input_ids": ids.unsqueeze(0), "use_cache": False})
    logits = logits.logits[0, :-1].float()
    nll = torch.nn.functional.cross_entropy(logits, ids[1:], reduction="none")
    return (nll * mask).sum() / mask.sum()


def _flat(grads: dict, names: Sequence[str], batch: int) -> torch.Tensor:
    import torch

    return torch.cat([grads[name].reshape(batch, -1) for name in names], dim=1)


def response_loss_gradients(model: torch.nn.Module,
                            examples: Iterable[ResponseExample | tuple[Sequence[int], int]], *,
                            batch_size: int = 32, method: Literal["auto", "vmap", "loop"] = "auto") -> torch.Tensor:
    """Per-example gradients [N, D] of the response-token mean NLL, flattened over the trainable parameters
    in `named_parameters()` order (tied weights once). Holds N x D floats: stream large N with
    `projected_gradients`. `method="auto"` uses vmap and, if the model cannot be traced, a per-example loop."""
    import torch
    from torch.func import grad, vmap

    examples = as_examples(examples)
    trainable, frozen = _trainable(model)
    names = list(trainable)

    def loss(params: dict, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return _response_loss(model, {**params, **frozen}, ids, mask)

    per_example = vmap(grad(loss), in_dims=(None, 0, 0))
    order = sorted(range(len(examples)), key=lambda i: len(examples[i].input_ids))  # less padding per batch
    out = torch.empty(len(examples), sum(p.numel() for p in trainable.values()))
    with _eval_mode(model):
        for start in range(0, len(examples), batch_size):
            rows = torch.tensor(order[start:start + batch_size])
            ids, mask = _padded([examples[i] for i in rows.tolist()])
            if method in ("auto", "vmap"):
                try:
                    out[rows] = _flat(per_example(trainable, ids, mask), names, len(ids))
                    continue
                except RuntimeError:  # an op or data-dependent branch vmap cannot batch
                    if method == "vmap":
                        raise
                    method = "loop"
            for row, i in enumerate(rows.tolist()):
                out[i] = _flat(grad(loss)(trainable, ids[row], mask[row]), names, 1)[0]
    return out


class RademacherProjector:
    """h = R·g/√D with R a d x D matrix of ±1 entries, generated column block by column block.

    Block b (columns b·block .. ) comes from a torch.Generator seeded from (seed, b) through numpy's
    SeedSequence, so R is fixed by (dim_in, dim_out, seed, block) and no more than one block (64 MB as float32
    by default) is generated at a time. R is cached between calls when it fits `cache_bytes` as float32 (or,
    failing that, as int8, one byte an entry) and regenerated per call otherwise."""

    def __init__(self, dim_in: int, dim_out: int = 512, seed: int = 0, block: int | None = None,
                 cache_bytes: int = CACHE_BYTES) -> None:
        if dim_in < 1 or dim_out < 1:
            raise ValueError(f"dimensions must be positive, got dim_in={dim_in}, dim_out={dim_out}")
        self.dim_in, self.dim_out, self.seed = dim_in, dim_out, seed
        self.block = block or max(1, BLOCK_ENTRIES // dim_out)
        self.n_blocks = math.ceil(dim_in / self.block)
        entries = dim_in * dim_out
        self.cache_dtype = ("float32" if 4 * entries <= cache_bytes else "int8" if entries <= cache_bytes
                            else None)
        self._cache: list[torch.Tensor] = []

    def block_seed(self, index: int) -> int:
        """The generator seed of column block `index`."""
        return int(np.random.SeedSequence([self.seed, index]).generate_state(1, dtype=np.uint64)[0])

    def generate_block(self, index: int) -> torch.Tensor:
        """Columns [index·block, min((index+1)·block, D)) of R, as int8 ±1 [d, width]."""
        import torch

        width = min(self.block, self.dim_in - index * self.block)
        generator = torch.Generator().manual_seed(self.block_seed(index))
        bits = torch.randint(0, 2, (self.dim_out, width), generator=generator, dtype=torch.int8)
        return bits * 2 - 1

    def _blocks(self) -> Iterable[torch.Tensor]:
        import torch

        if self.cache_dtype is None:
            return (self.generate_block(b).float() for b in range(self.n_blocks))
        if not self._cache:
            dtype = torch.float32 if self.cache_dtype == "float32" else torch.int8
            self._cache = [self.generate_block(b).to(dtype) for b in range(self.n_blocks)]
        return (block.float() for block in self._cache)

    def project(self, grads: torch.Tensor) -> torch.Tensor:
        """[B, D] float gradients -> [B, d] float32 projections R·g/√D."""
        import torch

        if grads.ndim != 2 or grads.shape[1] != self.dim_in:
            raise ValueError(f"expected gradients [B, {self.dim_in}], got {tuple(grads.shape)}")
        grads = grads.float()
        out = torch.zeros(grads.shape[0], self.dim_out)
        for index, block in enumerate(self._blocks()):
            start = index * self.block
            out.addmm_(grads[:, start:start + block.shape[1]], block.T)
        return out / math.sqrt(self.dim_in)


def trainable_dim(model: torch.nn.Module) -> int:
    """D: the number of trainable parameters (tied weights counted once), the projector's `dim_in`."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def projected_gradients(model: torch.nn.Module, examples: Iterable[ResponseExample | tuple[Sequence[int], int]],
                        projector: RademacherProjector, batch_size: int = 128, *, gradient_batch: int = 32,
                        method: Literal["auto", "vmap", "loop"] = "auto") -> np.ndarray:
    """[N, d] float64 projected gradients, streaming: the full gradients of `batch_size` examples (computed
    `gradient_batch` at a time) are projected together and dropped, so memory holds batch_size x D floats plus
    R's cache; projecting many rows per pass over R amortises reading (and converting) R."""
    import torch

    examples = as_examples(examples)
    if projector.dim_in != trainable_dim(model):
        raise ValueError(f"the projector takes D={projector.dim_in}, the model has {trainable_dim(model)} "
                         "trainable parameters")
    out = []
    for start in range(0, len(examples), batch_size):
        grads = response_loss_gradients(model, examples[start:start + batch_size], batch_size=gradient_batch,
                                        method=method)
        out.append(projector.project(grads))
    return torch.cat(out).double().numpy()
