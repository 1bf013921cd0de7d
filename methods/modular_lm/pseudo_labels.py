"""Stage-1 routing labels without the domain label, for MiCRo's unsupervised-routing variant: k-means clusters
(cosine, k = the number of experts) of the training text's bag of words. The paper's stage 1 routes by
pseudo-labels of sentences; here nothing but the text decides them, so whatever domain structure the routing
later shows was found, not given. On this corpus the domains differ in their words, which favours clusters that
follow them (the README says so).

k-means is a few lines of torch here (Lloyd's iterations from a k-means++ start) rather than a scikit-learn
dependency the family's extra does not carry.
"""
from __future__ import annotations

import torch

from methods.common.corpus_training import Batch, TrainingStream
from methods.common.vocab import PAD

SAMPLE_ROWS = 2048  # training rows the centroids are fitted on
ITERATIONS = 50


def bag_of_words(ids: torch.Tensor, vocabulary: int) -> torch.Tensor:
    """(rows, vocabulary) unit-length word counts of (rows, T) token ids, padding ignored."""
    counts = torch.zeros(ids.shape[0], vocabulary)
    counts.scatter_add_(1, ids, (ids != PAD).float())
    return torch.nn.functional.normalize(counts, dim=1)


def fit_centroids(rows: torch.Tensor, k: int, seed: int) -> torch.Tensor:
    """(k, features) unit centroids of unit-length `rows` by spherical k-means with a k-means++ start."""
    generator = torch.Generator().manual_seed(seed)
    centroids = rows[torch.randint(len(rows), (1,), generator=generator)]
    while len(centroids) < k:
        distance = (1 - rows @ centroids.T).min(dim=1).values.clamp_min(0)
        pick = torch.multinomial(distance + 1e-12, 1, generator=generator)
        centroids = torch.cat([centroids, rows[pick]])
    for _ in range(ITERATIONS):
        assigned = (rows @ centroids.T).argmax(dim=1)
        for c in range(k):
            members = rows[assigned == c]
            if len(members):
                centroids[c] = torch.nn.functional.normalize(members.sum(dim=0), dim=0)
    return centroids


class ClusterLabels:
    """Each training row's cluster, to route its tokens in stage 1 as MiCRo routes them by the domain label."""

    def __init__(self, stream: TrainingStream, k: int, vocabulary: int, seed: int):
        sample = stream.batch(SAMPLE_ROWS)
        self.vocabulary = vocabulary
        self.centroids = fit_centroids(bag_of_words(sample.ids, vocabulary), k, seed)

    def token_labels(self, batch: Batch) -> torch.Tensor:
        """(B, T) every token labelled with its row's cluster (the rows' domain labels are never read)."""
        clusters = (bag_of_words(batch.ids, self.vocabulary) @ self.centroids.T).argmax(dim=1)
        return clusters[:, None].expand_as(batch.ids)
