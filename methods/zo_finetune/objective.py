"""MeZO's classification objective: cross-entropy over the options' log-likelihoods as prompt continuations.

`--train_as_classification` in MeZO and QZO: each option word is scored by the mean log-probability of its
tokens after the prompt, and the loss is the cross-entropy of those scores against the label; prediction is
their argmax (MeZO `utils.forward_wrap_with_option_len`). When every option is one token (the word-level
tiny models, and " great"/" terrible" or "Yes"/"No"/"Maybe" under most BPE vocabularies) a single forward
pass scores them all at the prompt's last position; otherwise each option is a forward pass of its own.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from harness import DataError
from methods.zo_finetune.prompts import PromptExample

NO_ANSWER = -1  # the prediction of an example whose option scores are NaN: matches no label


@dataclass
class EncodedSet:
    """Token ids of a list of examples, tokenized once and collated per batch."""

    prompts: list[list[int]]
    options: list[list[list[int]]]  # example -> option -> token ids
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.prompts)

    @property
    def single_token(self) -> bool:
        return all(len(ids) == 1 for example in self.options for ids in example)


class OptionScorer:
    """Scores, losses and predictions of a causal LM on `PromptExample`s, for any tokenizer with a pad token."""

    def __init__(self, tokenizer) -> None:
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.tokenizer = tokenizer

    def encode(self, examples: Sequence[PromptExample]) -> EncodedSet:
        if not examples:
            raise DataError("the example set is empty")
        vocab_words = {option for example in examples for option in example.options}
        option_ids = {word: self.tokenizer(" " + word, add_special_tokens=False)["input_ids"] for word in vocab_words}
        unknown = [w for w, ids in option_ids.items() if self.tokenizer.unk_token_id in ids or not ids]
        if unknown:
            raise DataError(f"option word {unknown[0]!r} is not in the model's vocabulary")
        return EncodedSet([self.tokenizer(e.prompt)["input_ids"] for e in examples],
                          [[option_ids[o] for o in e.options] for e in examples],
                          np.array([e.label for e in examples]))

    def _padded(self, rows: list[list[int]], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(map(len, rows))
        ids = torch.full((len(rows), width), self.tokenizer.pad_token_id, dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, :len(row)] = torch.tensor(row)
        lengths = torch.tensor([len(r) for r in rows], device=device)
        return ids.to(device), (torch.arange(width, device=device)[None] < lengths[:, None]).long()

    def option_scores(self, model, data: EncodedSet, index: Sequence[int]) -> torch.Tensor:
        """[batch, options]: the mean log-probability of each option's tokens after its prompt."""
        device = next(model.parameters()).device
        if data.single_token:
            ids, mask = self._padded([data.prompts[i] for i in index], device)
            logits = model(input_ids=ids, attention_mask=mask).logits
            last = logits[torch.arange(len(index), device=device), mask.sum(1) - 1].float().log_softmax(-1)
            options = torch.tensor([[ids_[0] for ids_ in data.options[i]] for i in index], device=device)
            return last.gather(1, options)
        columns = []
        for k in range(len(data.options[index[0]])):
            rows = [data.prompts[i] + data.options[i][k] for i in index]
            ids, mask = self._padded(rows, device)
            logprobs = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float().log_softmax(-1)
            token_lp = logprobs.gather(2, ids[:, 1:, None]).squeeze(2)
            starts = torch.tensor([len(data.prompts[i]) - 1 for i in index], device=device)
            lengths = torch.tensor([len(data.options[i][k]) for i in index], device=device)
            position = torch.arange(token_lp.shape[1], device=device)[None]
            in_option = (position >= starts[:, None]) & (position < (starts + lengths)[:, None])
            columns.append((token_lp * in_option).sum(1) / lengths)
        return torch.stack(columns, dim=1)

    def loss(self, model, data: EncodedSet, index: Sequence[int]) -> torch.Tensor:
        labels = torch.as_tensor(data.labels[list(index)], device=next(model.parameters()).device)
        return torch.nn.functional.cross_entropy(self.option_scores(model, data, index), labels)

    @torch.no_grad()
    def predict(self, model, data: EncodedSet, batch_size: int = 128) -> np.ndarray:
        """The argmax option of each example, or `NO_ANSWER` where a score is NaN (a diverged model).

        argmax would return the NaN's index, so a diverged model would "answer" option 0 everywhere and
        score the share of label 0; counting it wrong keeps a diverged run's accuracy at what it answered.
        """
        chunks = []
        for start in range(0, len(data), batch_size):
            scores = self.option_scores(model, data, range(start, min(start + batch_size, len(data))))
            chunks.append(scores.argmax(1).masked_fill(scores.isnan().any(1), NO_ANSWER).cpu())
        return torch.cat(chunks).numpy()

    def accuracy(self, model, examples: Sequence[PromptExample]) -> float:
        data = self.encode(examples)
        return float((self.predict(model, data) == data.labels).mean())
