"""What the tiny Hugging Face causal LMs that families pre-train from scratch share (zo_finetune's, math_reasoning's,
sparse_attention's): the four special tokens of their tokenizers, the word-level tokenizer over a generator's
vocabulary (no hub tokenizer knows a generator's words), and the config fields a model takes from its tokenizer.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SPECIAL_TOKENS = {"pad_token": "<pad>", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}


def word_level_tokenizer(words: Iterable[str], pre_tokenizer: Any, normalizer: Any = None) -> Any:
    """A `PreTrainedTokenizerFast` with one id per word of `words` after the special tokens, BOS prepended, and
    decoding that joins words with single spaces; `pre_tokenizer` (and `normalizer`) say how text splits."""
    from tokenizers import Tokenizer, decoders, models, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {word: i for i, word in enumerate([*SPECIAL_TOKENS.values(), *words])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token=SPECIAL_TOKENS["unk_token"]))
    if normalizer is not None:
        backend.normalizer = normalizer
    backend.pre_tokenizer = pre_tokenizer
    backend.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins words with single spaces
    bos = SPECIAL_TOKENS["bos_token"]
    backend.post_processor = processors.TemplateProcessing(single=f"{bos} $A", special_tokens=[(bos, vocab[bos])])
    return PreTrainedTokenizerFast(tokenizer_object=backend, **SPECIAL_TOKENS)


def tokenizer_fields(tokenizer: Any) -> dict[str, Any]:
    """The fields of a transformers model config that come from its tokenizer (special ids, vocabulary size),
    with the input and output embeddings tied."""
    return dict(bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id, vocab_size=len(tokenizer), tie_word_embeddings=True)
