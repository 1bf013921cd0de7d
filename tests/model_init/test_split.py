"""The held-out split: no test or dev question is a training line (the source and every student train on the
train lines only), restricting the scored task types keeps the dev lines, a source seed "run" gives each run
seed its own source, and a balanced stream draws every group equally often."""
from __future__ import annotations

import pytest

from collections import Counter
from dataclasses import replace

from harness import DataError
from methods.common.corpus import CorpusConfig
from methods.model_init.data import generated
from methods.model_init.task import Pretrain
from methods.model_init.text import generated_corpus
from methods.common.vocab import PAD

SMALL = {"train_per_domain": 60, "dev_per_domain": 8, "test_per_domain": 8, "ood_per_domain": 4, "entities": 20}


@pytest.mark.parametrize("config", [CorpusConfig(), CorpusConfig(**SMALL)])
def test_no_test_or_dev_question_is_a_training_line(config):
    corpus = generated_corpus(config)
    train = set(corpus.train)
    questions = {line.rsplit(" a : ", 1)[0] for line in corpus.train}
    for held_out in (corpus.test, corpus.dev):
        assert held_out and not train & set(held_out)
        assert not questions & {line.rsplit(" a : ", 1)[0] for line in held_out}
    assert not set(corpus.test) & set(corpus.dev)
    assert len(corpus.test_tasks) == len(corpus.test) and len(corpus.dev_tasks) == len(corpus.dev)


def test_the_instance_hides_the_test_answers_and_trains_on_the_train_lines_only():
    data = generated(corpus=SMALL, tasks=["language", "social"])
    instance = Pretrain().instance(data, {}, 0)
    corpus = instance.inputs.corpus
    assert corpus.train == data.corpus.train and not set(corpus.train) & set(data.corpus.test)
    assert all(line.endswith(" a :") for line in corpus.test)  # the prompts, their answers blanked
    assert {t.split("/")[0] for t in corpus.test_tasks} == {"language", "social"}
    assert len(corpus.dev) == len(generated(corpus=SMALL).corpus.dev)  # the dev loss still reads every dev line
    prompts, answers, tasks = corpus.probe()
    assert prompts and {t.split("/")[0] for t in tasks} == {"language", "social"} and len(answers) == len(prompts)


def test_a_run_seed_picks_its_own_source_when_asked():
    data = generated(corpus=SMALL, source={"seed": "run"})
    assert [Pretrain().instance(data, {}, s).inputs.source["seed"] for s in (0, 3)] == [0, 3]
    assert Pretrain().instance(data, {}, 0).inputs.gate == 0.10  # the default scoring gate, or the dataset's
    assert Pretrain().instance(generated(corpus=SMALL, gate=0.25), {}, 0).inputs.gate == 0.25
    assert Pretrain().instance(generated(corpus=SMALL), {}, 3).inputs.source.get("seed", 0) == 0
    few = generated(corpus=SMALL, source={"seed": "run", "sources": 3})
    assert [Pretrain().instance(few, {}, s).inputs.source for s in (1, 4, 5)] == [{"seed": 1}, {"seed": 1},
                                                                                   {"seed": 2}]


@pytest.mark.parametrize("args, field", [({"tasks": ["chemistry"]}, "args.tasks"),
                                         ({"tasks": "language"}, "args.tasks"),
                                         ({"source": {"seed": "each"}}, "args.source.seed"),
                                         ({"source": {"seed": 0, "sources": 3}}, "args.source.sources"),
                                         ({"source": {"seed": "run", "sources": 0}}, "args.source.sources"),
                                         ({"balanced": "yes"}, "args.balanced"),
                                         ({"gate": 1.5}, "args.gate"), ({"gate": True}, "args.gate")])
def test_bad_tasks_and_source_seeds_are_data_errors(args, field):
    with pytest.raises(DataError) as error:
        generated(corpus=SMALL, **args)
    assert error.value.field == field


def test_a_balanced_stream_draws_each_domain_equally_often_and_a_plain_one_by_its_lines():
    corpus = generated(balanced=True).corpus
    domain_of = dict(zip(corpus.train, corpus.train_groups, strict=True))
    assert Counter(corpus.train_groups)["world"] < len(corpus.train) / 4  # the world domain's lines are fewer

    def shares(stream) -> dict[str, float]:
        ids = stream.batch(4000)
        lines = [" ".join(corpus.tokenizer.words[int(i)] for i in row[1:] if int(i) != PAD) for row in ids]
        counts = Counter(domain_of[line] for line in lines)
        return {domain: count / len(lines) for domain, count in counts.items()}

    balanced = shares(corpus.stream(0))
    assert set(balanced) == {"logic", "social", "world", "language"}
    assert all(abs(share - 0.25) < 0.03 for share in balanced.values())
    plain = shares(replace(corpus, balanced=False).stream(0))
    assert abs(plain["world"] - Counter(corpus.train_groups)["world"] / len(corpus.train)) < 0.03
    assert corpus.stream(1).batch(8).tolist() == corpus.stream(1).batch(8).tolist()  # seeded
