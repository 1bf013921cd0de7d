"""The base check: a domain's floor is what its most frequent answer scores, and a base that does not clear
floor + margin on a domain stops the run naming the domain; the cluster labels of the unsupervised variant
separate texts by their words alone."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("math_verify")

from methods.common.corpus import DOMAINS, CorpusConfig, Example, build_corpus, vocabulary  # noqa: E402
from methods.common.tiny_llama import BaseConfig, build_model  # noqa: E402
from methods.common.vocab import WordTokenizer  # noqa: E402
from methods.modular_lm import base_check  # noqa: E402
from methods.modular_lm.pseudo_labels import bag_of_words, fit_centroids  # noqa: E402
from tests.method_runs import context  # noqa: E402

CORPUS = CorpusConfig(train_per_domain=40, dev_per_domain=8, test_per_domain=8, ood_per_domain=4, entities=20)


def test_the_floor_is_the_most_frequent_answers_share():
    examples = [Example(f"{d}-{i}", d, "t", "q", "yes" if i < 3 else "no") for d in DOMAINS for i in range(4)]
    assert base_check.majority_floors(examples) == {d: 0.75 for d in DOMAINS}


@pytest.mark.slow  # greedy answers of a tiny model to the dev split
def test_an_untrained_base_stops_the_run_naming_its_domains():
    torch.manual_seed(0)
    tokenizer = WordTokenizer.over(vocabulary(CORPUS))
    model = build_model(BaseConfig(corpus=CORPUS, hidden_size=16, intermediate_size=32, num_heads=2), tokenizer).eval()
    dev = build_corpus(CORPUS).dev
    ctx = context()
    with pytest.raises(RuntimeError, match="does not know every domain before fine-tuning: dev accuracy logic"):
        base_check.check_base(model, tokenizer, dev, 0.1, ctx)
    base_check.check_base(model, tokenizer, dev, -1.0, ctx)  # the tiny instance's setting: no bar


def test_clusters_of_words_separate_texts_with_disjoint_words():
    ids = torch.tensor([[1, 5, 6, 7], [1, 5, 6, 0], [1, 9, 10, 11], [1, 10, 11, 0]] * 8)
    rows = bag_of_words(ids, 12)
    centroids = fit_centroids(rows, 2, seed=0)
    clusters = (rows @ centroids.T).argmax(dim=1)
    assert clusters[0] == clusters[1] != clusters[2] == clusters[3]
