"""The validation curve of fine-tuning: the weighted next-token loss (the training loss's weights) on the corpus's
dev split, at about 25 evenly spaced steps of a method's whole budget. It shows whether the budget lets every
method converge (its last quarter's relative drop is recorded), and it reads no test question."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from harness import RunContext
from methods.common.corpus import DOMAINS, Example
from methods.common.corpus_training import Batch, batch_loss
from methods.common.vocab import EOS, PAD, WordTokenizer

POINTS = 25


def dev_batch(examples: Sequence[Example], tokenizer: WordTokenizer, answer_weight: float) -> Batch:
    """Every dev example as one right-padded batch, its answer and end tokens weighted as in training."""
    rows = [torch.tensor([*tokenizer.encode(e.text), EOS]) for e in examples]
    weights = [torch.cat([torch.ones(len(r) - 3), torch.full((2,), answer_weight)]) for r in rows]
    ids = torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=PAD)
    weight = torch.nn.utils.rnn.pad_sequence(weights, batch_first=True, padding_value=0.0)
    return Batch(ids, weight, torch.tensor([DOMAINS.index(e.domain) for e in examples]))


class ValidationCurve:
    """Dev loss every `total_steps / POINTS` steps across one or several `train_steps` calls (MiCRo's stages)."""

    def __init__(self, model: Any, batch: Batch, total_steps: int):
        self.model, self.batch = model, batch
        self.every = max(1, total_steps // POINTS)
        self.steps: list[int] = []
        self.values: list[float] = []

    def hook(self, offset: int = 0) -> Callable[[int], None]:
        """`train_steps`'s on_step for a stage that starts after `offset` steps of the budget."""
        def on_step(step: int) -> None:
            at = offset + step
            if (step > 0 or offset == 0) and at % self.every == 0:
                self.model.eval()
                with torch.no_grad():
                    self.values.append(float(batch_loss(self.model, self.batch)))
                self.steps.append(at)
        return on_step

    def record(self, ctx: RunContext) -> None:
        """The curve (`val_loss`), its last value and its relative drop over the budget's last quarter."""
        ctx.record_curve("val_loss", self.steps, self.values)
        ctx.record("val_loss_final", self.values[-1])
        quarter = next(v for s, v in zip(self.steps, self.values, strict=True) if s >= 0.75 * self.steps[-1])
        ctx.record("val_loss_last_quarter_drop", (quarter - self.values[-1]) / quarter)
