"""The generated corpus: every answer follows from its question, the splits are disjoint, held-out templates
and world test entities never appear in training questions."""
from __future__ import annotations

import re

import pytest

from methods.common.corpus import DOMAINS, OOD_TEMPLATES, CorpusConfig, Example, build_corpus, fact_base

CONFIG = CorpusConfig(train_per_domain=400, dev_per_domain=50, test_per_domain=50, ood_per_domain=50, entities=60)


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(CONFIG)


def solve(example: Example, facts) -> str:
    """An independent reading of each question (not the generator's templates)."""
    q = example.question
    if m := re.fullmatch(r"what is (\d+) plus (\d+) \?|(\d+) plus (\d+) is what \?", q):
        a, b = (int(x) for x in m.groups() if x is not None)
        return str(a + b)
    if m := re.fullmatch(r"what is (\d+) minus (\d+) \?", q):
        return str(int(m.group(1)) - int(m.group(2)))
    if m := re.fullmatch(r"(\w+) is bigger than (\w+) \. \2 is bigger than (\w+) \. is (\w+) bigger than (\w+) \?", q):
        order = [m.group(1), m.group(2), m.group(3)]
        return "yes" if order.index(m.group(4)) < order.index(m.group(5)) else "no"
    if m := re.match(r"(\w+) puts the (\w+) in the (\w+) \. \1 (leaves|stays) \. \w+ moves the \2 to the (\w+) \.", q):
        if q.endswith(f"where is the {m.group(2)} ?"):
            return m.group(5)
        return m.group(3) if m.group(4) == "leaves" else m.group(5)
    if q.endswith("is this sentence grammatical ?"):
        subject = q.split()[1]
        verb = next(w for w in q.split() if w in ("is", "are"))
        return "yes" if (subject.endswith("s")) == (verb == "are") else "no"
    entity = re.search(r"the (\w+) (live|eat|lives|eats)", q) or re.search(r"does the (\w+)", q)
    assert entity is not None, q
    name = entity.group(1)
    return facts.city[name] if "live" in q else facts.food[name]


def test_every_answer_follows_from_its_question(corpus):
    facts = fact_base(CONFIG.entities, CONFIG.seed)
    for example in (*corpus.train, *corpus.dev, *corpus.test):
        assert solve(example, facts) == example.answer, example


def test_splits_share_no_question(corpus):
    train = {e.question for e in corpus.train}
    dev = {e.question for e in corpus.dev}
    test = {e.question for e in corpus.test}
    assert not train & dev and not train & test and not dev & test


def test_held_out_templates_only_in_test(corpus):
    ood = {name for templates in OOD_TEMPLATES.values() for name in templates} | {"live_reordered", "eat_reordered"}
    assert not {e.template for e in (*corpus.train, *corpus.dev)} & ood
    test_ood = {e.template for e in corpus.test if e.ood}
    assert test_ood == ood


def test_world_test_entities_are_stated_but_never_asked_in_training(corpus):
    def entities(examples):
        return {re.search(r"the (\w+) (?:live|eat)", e.question).group(1) for e in examples if e.domain == "world"}

    test = entities(corpus.test)
    assert test and not test & entities(corpus.train)
    stated = {s.split()[1] for s in corpus.statements}
    assert test <= stated


def test_every_domain_in_every_split(corpus):
    for split in ("train", "dev", "test"):
        assert {e.domain for e in corpus.split(split)} == set(DOMAINS)


def test_same_config_same_corpus_other_seed_other_corpus():
    assert build_corpus(CONFIG) == build_corpus(CONFIG)
    other = build_corpus(CorpusConfig(**{**CONFIG.__dict__, "seed": 1}))
    assert other.test != build_corpus(CONFIG).test


def test_answers_are_single_words(corpus):
    assert all(len(e.answer.split()) == 1 for e in (*corpus.train, *corpus.test))
