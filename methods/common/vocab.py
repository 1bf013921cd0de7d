"""The word-level tokenizer over the generated corpus: whitespace-split words, four special tokens first.
Plain Python (no hub tokenizer): the corpus's words are known in advance and every answer is one word."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SPECIALS = ("<pad>", "<s>", "</s>", "<unk>")
PAD, BOS, EOS, UNK = range(4)


@dataclass(frozen=True)
class WordTokenizer:
    words: tuple[str, ...]  # every id's word, specials first

    @classmethod
    def over(cls, words: Sequence[str]) -> "WordTokenizer":
        return cls(SPECIALS + tuple(w for w in words if w not in SPECIALS))

    def __len__(self) -> int:
        return len(self.words)

    @property
    def index(self) -> dict[str, int]:
        return {word: i for i, word in enumerate(self.words)}

    def encode(self, text: str) -> list[int]:
        """BOS, then one id per whitespace-separated word (unknown words: UNK)."""
        index = self.index
        return [BOS, *(index.get(word, UNK) for word in text.split())]

    def decode(self, ids: Sequence[int]) -> str:
        """The words up to the first EOS, specials dropped."""
        words: list[str] = []
        for i in ids:
            if i == EOS:
                break
            if i >= len(SPECIALS):
                words.append(self.words[i])
        return " ".join(words)
