"""The RULER generators: seeded, the requested length, one needle where it was drawn, answers in the prompt."""
from __future__ import annotations

from itertools import pairwise

import pytest

from harness import DataError
from methods.sparse_attention import ruler

LENGTHS = (256, 1000, 4096)


def _after(words: list[str], pattern: list[str], count: int) -> list[str]:
    """The `count` words after the first occurrence of `pattern`."""
    for i in range(len(words) - len(pattern)):
        if words[i:i + len(pattern)] == pattern:
            return words[i + len(pattern):i + len(pattern) + count]
    raise AssertionError(f"{pattern} not in prompt")


def solve(sample: ruler.RulerSample) -> str:
    """A rule-based reader: it takes the queried key from the end of the prompt and looks it up."""
    words = sample.prompt.split()
    if sample.task in ("niah_single", "niah_multikey"):
        return " ".join(_after(words, ["for", words[-3], "is", ":"], 4))
    if sample.task == "kv_retrieval":
        return " ".join(_after(words, [words[-2], ":"], 4))
    value = sample.prompt.rsplit(" assigned the value ", 2)[1].split(" in the text above")[0].split()
    chain = []
    name = _assigned(words, value)
    while name is not None:
        chain.append(name)
        name = _assigned(words, ["var", name])
    return " ".join(chain)


def _assigned(words: list[str], right: list[str]) -> str | None:
    """The variable of the statement `var NAME = <right> .`, if there is one."""
    pattern = ["=", *right, "."]
    for i in range(len(words) - len(pattern)):
        if words[i:i + len(pattern)] == pattern and words[i - 2] == "var":
            return words[i - 1]
    return None


@pytest.mark.parametrize("task", list(ruler.TASKS))
def test_generators_are_deterministic_per_seed(task):
    first, again, other = (ruler.generate(task, 512, 3, seed=s) for s in (0, 0, 1))
    assert first == again
    assert [s.prompt for s in first] != [s.prompt for s in other]
    assert len({s.prompt for s in first}) == 3


@pytest.mark.parametrize("task", list(ruler.TASKS))
@pytest.mark.parametrize("length", LENGTHS)
def test_prompt_meets_the_requested_length(task, length):
    for sample in ruler.generate(task, length, 3):
        assert sample.context_length == len(sample.prompt.split()) + 1  # the BOS
        tolerance = 6 if task == "kv_retrieval" else 0  # kv fills whole pairs of 7 tokens
        assert length - tolerance <= sample.context_length <= length


@pytest.mark.parametrize("task", list(ruler.TASKS))
@pytest.mark.parametrize("length", LENGTHS)
def test_rule_based_reader_recovers_every_answer(task, length):
    for sample in ruler.generate(task, length, 5):
        assert ruler.score_sample(solve(sample), sample.answers) == 1.0


@pytest.mark.parametrize("task", ["niah_single", "niah_multikey"])
def test_needle_occurs_once_at_the_drawn_depth(task):
    intro = len(ruler._NIAH_INTRO.split())
    for sample in ruler.generate(task, 2000, 10):
        words = sample.prompt.split()
        key, value = words[-3], sample.answers[0].split()
        needle = ["for", key, "is", ":", *value]
        starts = [i for i in range(len(words)) if words[i:i + len(needle)] == needle]
        assert len(starts) == 1
        haystack = len(words) - intro - len(ruler._NIAH_QUESTION.split())
        # Needles go to the nearest sentence boundary: at most one sentence (13 words) and the other
        # needles (14 words each) away from the drawn depth.
        slack = 13 + 14 * 4
        assert abs((starts[0] - intro) - sample.depth * haystack) <= slack


def test_kv_depth_is_the_queried_pairs_place_in_the_list():
    for sample in ruler.generate("kv_retrieval", 1000, 10):
        words = sample.prompt.split()
        keys = words[words.index("{") + 1:words.index("}"):7]
        assert keys.count(words[-2]) == 1
        assert keys.index(words[-2]) == round(sample.depth * (len(keys) - 1))


def test_variable_chain_statements_occur_once_and_in_order():
    for sample in ruler.generate("variable_tracking", 1000, 10):
        text = f" {sample.prompt} "
        value = sample.prompt.split(" the value ")[1].split(" in the text")[0]
        statements = [f" var {sample.answers[0]} = {value} . "]
        statements += [f" var {b} = var {a} . " for a, b in pairwise(sample.answers)]
        assert [text.count(s) for s in statements] == [1] * len(statements)
        places = [text.index(s) for s in statements]
        assert places == sorted(places)


def test_needle_depths_spread_over_the_whole_haystack():
    depths = [s.depth for s in ruler.generate("niah_single", 256, 200)]
    assert min(depths) < 0.05 and max(depths) > 0.95
    assert 0.4 < sum(depths) / len(depths) < 0.6


def test_follow_up_questions_are_answered_by_the_same_context():
    for task in ("niah_multikey", "kv_retrieval", "variable_tracking"):
        for sample in ruler.generate(task, 1000, 3):
            assert sample.other_queries
            for question, answers in sample.other_queries:
                follow_up = ruler.RulerSample(task, f"{sample.prompt} {question}", answers, 0, 0.0)
                assert ruler.score_sample(solve(follow_up), answers) == 1.0


def test_prompts_use_only_the_vocabulary():
    vocabulary = set(ruler.vocabulary())
    assert len(vocabulary) == len(ruler.vocabulary())
    for task in ruler.TASKS:
        sample = ruler.generate(task, 1000, 1)[0]
        assert set(sample.prompt.split()) <= vocabulary
        assert {w for a in sample.answers for w in a.split()} <= vocabulary


def test_filler_shares_no_word_with_the_templates_or_keys():
    assert not set(ruler.FILLER_WORDS) & set(ruler.TEMPLATE_WORDS)
    assert not set(ruler.KEY_WORDS) & (set(ruler.FILLER_WORDS) | set(ruler.TEMPLATE_WORDS))
    assert len(set(ruler.KEY_WORDS)) == ruler.KEY_POOL_SIZE


def test_too_short_a_context_and_unknown_tasks_are_data_errors():
    with pytest.raises(DataError, match="at least"):
        ruler.generate("variable_tracking", 100, 1)
    with pytest.raises(DataError, match="unknown RULER task"):
        ruler.generate("niah_multivalue", 512, 1)
    with pytest.raises(DataError, match="distinct keys"):
        ruler.generate("kv_retrieval", 32768, 1)


def test_string_match_all_is_the_fraction_of_answers_found():
    assert ruler.score_sample("the special magic number is 7 3 0 1", ["7 3 0 1"]) == 1.0
    assert ruler.score_sample("7 3 0 2", ["7 3 0 1"]) == 0.0
    assert ruler.score_sample("BAKO tilu", ["bako", "tilu", "rema", "sofi", "kode"]) == pytest.approx(2 / 5)


def test_avg_and_weighted_avg_increasing_match_hand_computed_values():
    scores = {16384: 0.3, 4096: 0.9, 8192: 0.6}  # unsorted on purpose: the weights follow the length
    assert ruler.average(scores) == pytest.approx(0.6)
    assert ruler.weighted_average_increasing(scores) == pytest.approx((1 * 0.9 + 2 * 0.6 + 3 * 0.3) / 6)
    assert ruler.weighted_average_increasing({512: 0.5}) == pytest.approx(0.5)
