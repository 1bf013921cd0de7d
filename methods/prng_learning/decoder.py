"""The paper's learner (Tao & Barkeshli, arXiv 2510.26792) in miniature: a small Llama decoder (RoPE) trained from
scratch with next-token cross-entropy on sequences of the training (a, c) pairs, one token per output number,
cached by recipe + seed + thread count (harness.model_cache); at test time it predicts unseen pairs' sequences
in context. Its held-out accuracy over training (the steps-to-threshold curve), its per-position accuracy and the
clustering of its number embeddings by bit-rotation class are recorded with the run."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from harness import Method, RunContext
from harness.model_cache import cached_folder, recipe_folder
from methods.prng_learning.data import PrngSource
from methods.prng_learning.params import DecoderParams, ModelConfig
from methods.prng_learning.stream import recipe as stream_recipe
from methods.prng_learning.task import SequenceInputs


def recipe(source: PrngSource, params: DecoderParams) -> ModelConfig:
    """The decoder's recipe for a source: its training stream and the method's sizes."""
    return stream_recipe(source, params, d_model=params.d_model, layers=params.layers, heads=params.heads,
                         lr=params.lr, eval_every=params.eval_every)


def prepare(config: ModelConfig, seed: int, num_threads: int = 1, cache_dir: str | Path | None = None) -> Path:
    """The folder of the decoder trained with `config` and `seed` (trained and published there first if absent)."""
    from methods.prng_learning.training import train

    root = recipe_folder("prng-decoder", config, seed, num_threads, cache_dir)
    return cached_folder(root, num_threads, lambda: train(config, seed), _write)


def _write(staging: Path, trained: tuple[Any, dict[str, Any]]) -> None:
    model, record = trained
    model.save_pretrained(staging)
    (staging / "training.json").write_text(json.dumps(record, indent=2) + "\n")


@lru_cache(maxsize=8)
def load(root: Path) -> Any:
    from transformers import LlamaForCausalLM

    return LlamaForCausalLM.from_pretrained(root).eval()


def rotation_class(values: np.ndarray, width: int) -> np.ndarray:
    """Each value's bit-rotation class (necklace): the smallest of its `width`-bit rotations."""
    from methods.prng_learning.generators import rotate_right

    values = np.asarray(values, dtype=np.int64)
    return np.min(np.stack([rotate_right(values, np.full_like(values, r), width) for r in range(width)]), axis=0)


def rotation_clustering(embeddings: np.ndarray, width: int, components: int = 8, seed: int = 0) -> tuple[float, float]:
    """Silhouette of the number embeddings' top principal components against the bit-rotation classes, and the
    same with the class labels shuffled (what no structure scores); nan where the classes leave the silhouette
    undefined (a single class, or every number a class of its own)."""
    from sklearn.decomposition import PCA
    from sklearn.metrics import silhouette_score

    labels = rotation_class(np.arange(len(embeddings)), width)
    if not 2 <= len(np.unique(labels)) < len(labels):
        return float("nan"), float("nan")
    points = PCA(n_components=min(components, len(embeddings) - 1), random_state=seed).fit_transform(embeddings)
    shuffled = np.random.default_rng(seed).permutation(labels)
    return float(silhouette_score(points, labels)), float(silhouette_score(points, shuffled))


class Decoder(Method[DecoderParams]):
    def run(self, inputs: SequenceInputs, ctx: RunContext) -> np.ndarray:
        from methods.prng_learning.training import predict

        config = recipe(inputs.source, self.params)
        root = prepare(config, ctx.seed, num_threads=max(1, ctx.threads))
        record = json.loads((root / "training.json").read_text())
        model = load(root)
        guesses = predict(model, inputs.numbers)
        ctx.record("train_seconds", record["train_seconds"], "s", higher_is_better=False)
        ctx.record("parameters", record["parameters"])
        ctx.record("sequence_length", float(inputs.numbers.shape[1]), "numbers")  # pos_90 / pos_99's censoring level
        if record["heldout_curve"]:
            heldout_steps, accs = zip(*record["heldout_curve"], strict=True)
            ctx.record_curve("heldout_accuracy", heldout_steps, accs, higher_is_better=True)
        loss_steps = [50 * (i + 1) for i in range(len(record["loss"]))]
        ctx.record_curve("train_loss", loss_steps, record["loss"], higher_is_better=False)
        correct = guesses[:, 1:] == inputs.numbers[:, 1:]
        ctx.record_curve("position_accuracy", range(1, inputs.numbers.shape[1]), correct.mean(axis=0),
                         higher_is_better=True)
        gen = inputs.source.gen
        embeddings = model.get_input_embeddings().weight.detach().numpy()[:gen.vocab]
        score, shuffled = rotation_clustering(embeddings, gen.out_bits, seed=ctx.seed)
        ctx.record("rotation_silhouette", score, higher_is_better=True)
        ctx.record("rotation_silhouette_shuffled", shuffled)
        return guesses
