"""Training the family's decoder: a small Llama (RoPE, pre-norm, SwiGLU) from transformers' own classes, built
from scratch, one token per output number, next-token cross-entropy on sequences of training (a, c) pairs.

The batches are the recipe's training stream (`stream.py`, curricula and joint generators there). The held-out
accuracy on the target modulus's unseen pairs is measured every `eval_every` steps, so steps-to-threshold come
out of one run.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from methods.prng_learning.generators import Generator, PairSplit
from methods.prng_learning.params import ModelConfig
from methods.prng_learning.stream import mixture, training_batches, vocab_size


def build_model(config: ModelConfig, vocab: int) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    hf = LlamaConfig(vocab_size=vocab, hidden_size=config.d_model, intermediate_size=config.ffn_mult * config.d_model,
                     num_hidden_layers=config.layers, num_attention_heads=config.heads,
                     num_key_value_heads=config.heads, max_position_embeddings=config.seq_len,
                     rope_theta=config.rope_theta, initializer_range=config.init_std,
                     tie_word_embeddings=False, bos_token_id=None, eos_token_id=None,
                     pad_token_id=None, use_cache=False, attention_dropout=0.0)
    hf._attn_implementation = "sdpa"
    return LlamaForCausalLM(hf)


def heldout_sequences(gen: Generator, split: PairSplit, length: int, per_pair: int, seed: int) -> np.ndarray:
    """Every held-out pair of `split`, `per_pair` sequences each from random seed states (the eval seed's)."""
    pairs = np.repeat(np.asarray(split.test, dtype=np.int64), per_pair, axis=0)
    return gen.sequences(pairs, length, np.random.default_rng(seed))


def predict(model: Any, sequences: np.ndarray, chunk: int = 256) -> np.ndarray:
    """The model's argmax next number at every position: column i is its guess of x_i from x_0 .. x_{i-1}
    (column 0, with no context, is the guess after x_0 shifted: it is left -1 and never scored as right)."""
    import torch

    out = np.full(sequences.shape, -1, dtype=np.int64)
    model.eval()
    with torch.no_grad():
        for lo in range(0, len(sequences), chunk):
            ids = torch.as_tensor(sequences[lo:lo + chunk], dtype=torch.long)
            logits = model(input_ids=ids).logits
            out[lo:lo + chunk, 1:] = logits[:, :-1].argmax(-1).numpy()
    return out


def train(config: ModelConfig, seed: int) -> tuple[Any, dict[str, Any]]:
    """The trained model and its training record (loss curve and held-out accuracy curve at the target m)."""
    import torch

    torch.manual_seed(seed)
    parts = mixture(config)
    vocab = vocab_size(config)
    model = build_model(config, vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay,
                                  betas=(0.9, 0.98))
    warmup = max(1, round(config.warmup_fraction * config.steps))

    def lr_at(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, config.steps - warmup)
        return 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    targets = [(g, s) for g, s, _ in parts if g.k == config.k]
    monitor = [heldout_sequences(g, s, config.seq_len, 1, seed + 7)[:config.monitor_sequences] for g, s in targets]
    losses: list[float] = []
    curve: list[tuple[int, float]] = []
    start = time.perf_counter()
    for step, sequences in enumerate(training_batches(config, seed)):
        if config.eval_every and step % config.eval_every == 0:
            curve.append((step, _late_accuracy(model, monitor)))
            model.train()
        batch = torch.as_tensor(sequences, dtype=torch.long)
        logits = model(input_ids=batch).logits
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, vocab), batch[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.detach()))
    seconds = time.perf_counter() - start
    if config.eval_every:
        curve.append((config.steps, _late_accuracy(model, monitor)))
    record = {"steps": config.steps, "train_seconds": round(seconds, 2), "vocab": vocab,
              "parameters": sum(p.numel() for p in model.parameters()),
              "loss": [round(float(np.mean(losses[i:i + 50])), 4) for i in range(0, len(losses), 50)],
              "heldout_curve": [[s, round(a, 4)] for s, a in curve]}
    model.eval()
    return model, record


def _late_accuracy(model: Any, monitor: list[np.ndarray]) -> float:
    """Held-out exact-match accuracy over the second half of the positions (the monitored curve)."""
    scores = []
    for seqs in monitor:
        guess = predict(model, seqs)
        half = seqs.shape[1] // 2
        scores.append(float((guess[:, half:] == seqs[:, half:]).mean()))
    return float(np.mean(scores))
