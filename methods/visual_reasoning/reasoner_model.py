"""The miniature reasoner's network: a transformers `LlamaForCausalLM` built from a config (no pretrained weights,
nothing downloaded) and fed `inputs_embeds`: a picture's patches through one linear patch embedding plus a learned
position per patch, then the token embeddings of the task's `reasoner.vocabulary`. Trained from scratch with AdamW on
cross-entropy over each sequence's tokens after its prompt (`reasoner.traces`); `CachedDecoder` answers through
the key-value cache, so a rollout runs each picture through the network once. A model trained on every level of a
task (`Recipe.levels`) is cached outside git (`shared_model`), so the runs of its levels train it once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from methods.visual_reasoning.data import PuzzleSource, puzzles
from methods.visual_reasoning.puzzle import TRAIN_STREAM, Difficulty, TaskKind
from methods.visual_reasoning.reasoner import PAD, PATCH_VALUES, PATCHES, Sequence, Variant, traces, vocabulary

IGNORE = -100  # the label of a position without loss


def network(width: int, layers: int, heads: int, words: int) -> Any:
    """The reasoner over a vocabulary of `words`: `width`-wide, `layers` deep, MLP twice the width."""
    import torch
    from torch import nn
    from transformers import LlamaConfig, LlamaForCausalLM

    class Reasoner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            config = LlamaConfig(vocab_size=words, hidden_size=width, intermediate_size=2 * width,
                                 num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                                 max_position_embeddings=512, pad_token_id=PAD, bos_token_id=None,
                                 eos_token_id=None)
            self.lm = LlamaForCausalLM(config)
            self.patch = nn.Linear(PATCH_VALUES, width)
            self.where = nn.Parameter(torch.zeros(PATCHES, width))

        def embed(self, pictures: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
            """(N, PATCHES + T, width): pixels centred (x / 255 - 0.5), patches then tokens."""
            seen = self.patch(pictures.float() / 255.0 - 0.5) + self.where
            return torch.cat([seen, self.lm.get_input_embeddings()(tokens)], dim=1)

    return Reasoner()


def batch(sequences: list[Sequence]) -> tuple[Any, Any, Any]:
    """(pictures, tokens right-padded, labels): the labels are the tokens from each prompt on, IGNORE elsewhere
    (the patches, the prompt, the padding); the network shifts them by one itself."""
    import torch

    length = max(len(s.tokens) for s in sequences)
    tokens = np.full((len(sequences), length), PAD, dtype=np.int64)
    labels = np.full((len(sequences), PATCHES + length), IGNORE, dtype=np.int64)
    for row, s in enumerate(sequences):
        tokens[row, :len(s.tokens)] = s.tokens
        labels[row, PATCHES + s.prompt:PATCHES + len(s.tokens)] = s.tokens[s.prompt:]
    pictures = torch.from_numpy(np.stack([s.picture for s in sequences]))
    return pictures, torch.from_numpy(tokens), torch.from_numpy(labels)


def loss_of(model: Any, pictures: Any, tokens: Any, labels: Any) -> Any:
    """The mean cross-entropy over the labelled positions (a tensor, for backpropagation)."""
    return model.lm(inputs_embeds=model.embed(pictures, tokens), labels=labels).loss


def train(model: Any, sequences: list[Sequence], steps: int, batch_size: int, lr: float, seed: int) -> float:
    """`steps` AdamW steps on mini-batches of shuffled sequences (seeded, full passes); the last batch's loss."""
    import torch

    torch.manual_seed(seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    model.train()
    loss = float("nan")
    step = 0
    while step < steps:
        for chosen in torch.randperm(len(sequences), generator=generator).split(batch_size):
            pictures, tokens, labels = batch([sequences[i] for i in chosen.tolist()])
            value = loss_of(model, pictures, tokens, labels)
            optimiser.zero_grad()
            value.backward()
            optimiser.step()
            step += 1
            loss = value.item()
            if step == steps:
                break
    model.eval()
    return loss


@dataclass(frozen=True)
class Recipe:
    """What a trained reasoner depends on besides its seed: the traces' version (`ReasonerParams.version`), the
    task, the levels its training puzzles come from (`train_puzzles` of each), the variant and the training and
    network settings."""

    version: str
    kind: TaskKind
    levels: tuple[Difficulty, ...]
    variant: Variant
    train_puzzles: int
    steps: int
    batch: int
    lr: float
    width: int
    layers: int
    heads: int


def trained(recipe: Recipe, seed: int) -> tuple[Any, dict[str, float]]:
    """(the network, initialised from `seed` and trained on the recipe's traces; its training record: the last
    batch's loss, the number of sequences)."""
    import torch

    sequences = [s for level in recipe.levels
                 for puzzle in puzzles(PuzzleSource(recipe.kind, level, recipe.train_puzzles), seed, TRAIN_STREAM)
                 for s in traces(puzzle, recipe.variant)]
    torch.manual_seed(seed)
    model = network(recipe.width, recipe.layers, recipe.heads, len(vocabulary(recipe.kind)))
    loss = train(model, sequences, recipe.steps, recipe.batch, recipe.lr, seed)
    return model, {"train_loss": loss, "train_sequences": float(len(sequences))}


def shared_model(recipe: Recipe, seed: int) -> tuple[Any, dict[str, float]]:
    """`trained(recipe, seed)` from the model cache, trained (on one torch thread) and published there first if
    absent; one worker trains it, the runs of the other levels wait for it and load it."""
    from methods.common.torch_cache import load_weights, prepared, training_record

    root = prepared(f"reasoner-{recipe.kind}-{recipe.variant}", recipe, seed, 1, None, trained)
    model = network(recipe.width, recipe.layers, recipe.heads, len(vocabulary(recipe.kind)))
    return load_weights(root, model), training_record(root)


class CachedDecoder:
    """`reasoner.Decoder` over the network, keeping each batch's key-value cache between tokens."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.cache: Any = None

    def _log_probs(self, embeds: Any) -> np.ndarray:
        import torch

        out = self.model.lm(inputs_embeds=embeds, past_key_values=self.cache, use_cache=True)
        self.cache = out.past_key_values
        return torch.log_softmax(out.logits[:, -1].double(), dim=-1).numpy()

    def begin(self, pictures: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        import torch

        self.cache = None
        with torch.no_grad():
            return self._log_probs(self.model.embed(torch.from_numpy(pictures), torch.from_numpy(tokens).long()))

    def extend(self, tokens: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            return self._log_probs(self.model.lm.get_input_embeddings()(torch.from_numpy(tokens).long()[:, None]))
