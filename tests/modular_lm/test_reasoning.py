"""The held-out multi-step items: every answer follows from its question by an independent reading, no item is a
corpus question or uses a word the tokenizer lacks, and the loader puts them beside the test split (or not)."""
from __future__ import annotations

import re

import pytest

from harness import DataError
from methods.common.corpus import CorpusConfig, build_corpus, vocabulary
from methods.modular_lm.data import generated
from methods.modular_lm.reasoning import KINDS, reasoning_items

SMALL = {"train_per_domain": 40, "dev_per_domain": 8, "test_per_domain": 8, "ood_per_domain": 4, "entities": 20}


def solve(kind: str, question: str) -> str:
    if kind == "arithmetic":
        a, b, c = map(int, re.fullmatch(r"what is (\d+) plus (\d+) minus (\d+) \?", question).groups())
        return str(a + b - c)
    if kind == "deduction":
        facts = re.findall(r"(\w+) is bigger than (\w+) \.", question)
        x, y = re.search(r"\. is (\w+) bigger than (\w+) \?$", question).groups()
        bigger = dict(facts)  # each name is bigger than one other: follow the chain from x
        while x in bigger and x != y:
            x = bigger[x]
        return "yes" if x == y else "no"
    if kind == "social":
        places = re.findall(r"(?:in|to) the (\w+) \.", question)
        return places[0] if "look for" in question else places[-1]
    subject, verb = question.split()[1], re.search(r" (is|are) \w+ \. is this", question).group(1)
    return "yes" if subject.endswith("s") == (verb == "are") else "no"


@pytest.fixture(scope="module")
def items():
    return reasoning_items(100)


def test_every_answer_follows_from_its_question(items):
    assert len(items) == 100 * len(KINDS)
    assert all(solve(kind, e.question) == e.answer for kind, e in items)


def test_items_are_held_out_and_use_known_words(items):
    corpus = build_corpus(CorpusConfig())
    questions = {e.question for split in ("train", "dev", "test") for e in corpus.split(split)}
    words = set(vocabulary(CorpusConfig()))
    assert not questions & {e.question for _, e in items}
    assert all(set(e.text.split()) <= words for _, e in items)
    assert len({e.id for _, e in items}) == len(items)


def test_yes_no_kinds_are_balanced(items):
    for kind in ("deduction", "language"):
        yes = sum(e.answer == "yes" for k, e in items if k == kind)
        assert 35 <= yes <= 65


def test_the_loader_puts_the_items_beside_the_test_split_or_uses_the_dev_split():
    with_items = generated({"config": {"corpus": SMALL}}, reasoning=5).truth()
    plain = generated({"config": {"corpus": SMALL}}).truth()
    assert len(with_items) == len(plain) + 5 * len(KINDS)
    assert {t.reasoning for t in with_items.values()} == {"", *KINDS}
    dev = generated({"config": {"corpus": SMALL}}, split="dev").truth()
    assert set(dev).isdisjoint(plain) and len(dev) == len(build_corpus(CorpusConfig(**SMALL)).dev)


@pytest.mark.parametrize("args", [{"reasoning": -1}, {"reasoning": "many"}, {"split": "train"}])
def test_bad_loader_arguments_name_the_field(args):
    with pytest.raises(DataError, match="reasoning|split"):
        generated(None, **args)


def test_the_lm_eval_export_holds_the_same_items_in_gsm8k_and_bbh_fields(tmp_path):
    import json

    import yaml

    from methods.modular_lm.lm_eval_export import PREFIX, export_tasks, main

    names = export_tasks(tmp_path / "tasks", per_kind=5)
    assert names == [PREFIX + kind for kind in KINDS]
    exported = {}
    for kind in KINDS:
        config = yaml.safe_load((tmp_path / "tasks" / f"{PREFIX}{kind}.yaml").read_text())
        data_file = config["dataset_kwargs"]["data_files"]["test"]
        assert config["task"] == PREFIX + kind and data_file == str(tmp_path / "tasks" / f"{PREFIX}{kind}.jsonl")
        for line in open(data_file):
            row = json.loads(line)
            exported[row["id"]] = (row["question"], row["answer"].removeprefix("#### ")) if kind == "arithmetic" \
                else (row["input"], row["target"])
    assert exported == {e.id: (e.question, e.answer) for _, e in reasoning_items(5)}
    with pytest.raises(SystemExit):
        main([str(tmp_path / "none"), "--per-kind", "0"])


def test_the_lm_eval_export_refuses_a_folder_it_cannot_write_with_exit_3(tmp_path, capsys):
    from methods.modular_lm.lm_eval_export import main

    (tmp_path / "a_file").write_text("")
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "a_file" / "tasks")])
    assert stopped.value.code == 3
    assert "cannot write the tasks to" in capsys.readouterr().err
