"""MiCRo reads the domain label only where the paper does, in stage 1's warm-up: scrambling every label after
stage 1's batches leaves the trained model bit-identical (this breaks if a router loss, a routing decision or a
batch choice after stage 1 reads the label), scrambling them during stage 1 does not (the check can fail), and
the unsupervised-routing variant never reads one."""
from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from methods.common.corpus import CorpusConfig, build_corpus, vocabulary  # noqa: E402
from methods.common.corpus_training import Batch, TrainingStream  # noqa: E402
from methods.common.tiny_llama import BaseConfig, build_model  # noqa: E402
from methods.common.vocab import WordTokenizer  # noqa: E402
from methods.modular_lm.micro import curriculum  # noqa: E402
from methods.modular_lm.params import MiCRoParams  # noqa: E402

pytestmark = pytest.mark.slow  # six short curricula (about 5 s on an idle core; run by .ci/run)

CORPUS = CorpusConfig(train_per_domain=40, dev_per_domain=8, test_per_domain=8, ood_per_domain=4, entities=20)
PARAMS = {"steps": 6, "batch_size": 4, "router_hidden": 8, "stage1_share": 0.34}  # stages of 2, 1 and 3 steps


class Relabelled:
    """The training stream with every batch's domain labels shifted by one after its first `keep` batches."""

    def __init__(self, keep: int):
        tokenizer = WordTokenizer.over(vocabulary(CORPUS))
        self.stream = TrainingStream(build_corpus(CORPUS), tokenizer, 3.0, seed=0)
        self.keep, self.drawn = keep, 0

    def batch(self, size: int) -> Batch:
        batch = self.stream.batch(size)
        self.drawn += 1
        return batch if self.drawn <= self.keep else Batch(batch.ids, batch.weight, (batch.domain + 1) % 4)


@pytest.fixture(scope="module")
def base():
    torch.manual_seed(0)
    config = BaseConfig(corpus=CORPUS, hidden_size=16, intermediate_size=32, num_heads=2)
    return build_model(config, WordTokenizer.over(vocabulary(CORPUS))).eval()


def trained(base, keep: int, **params) -> list[torch.Tensor]:
    model = copy.deepcopy(base)
    curriculum(model, Relabelled(keep), MiCRoParams(**PARAMS, **params), seed=0)
    return [p.detach().clone() for p in model.parameters()]


def same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def true_labels(base):
    return trained(base, keep=10**6)


def test_no_label_is_read_after_stage_one(base, true_labels):
    stage1 = MiCRoParams(**PARAMS).stage_steps()[0]
    assert same(true_labels, trained(base, keep=stage1))


def test_stage_one_routes_by_the_label(base, true_labels):
    assert not same(true_labels, trained(base, keep=stage1_minus_one(base)))


def stage1_minus_one(base) -> int:
    return MiCRoParams(**PARAMS).stage_steps()[0] - 1


def test_the_unsupervised_variant_reads_no_label(base):
    assert same(trained(base, keep=10**6, stage1_routing="clusters"), trained(base, keep=0, stage1_routing="clusters"))
