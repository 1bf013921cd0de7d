"""RULER's retrieval and multi-hop tasks (Hsieh et al., 2024), regenerated over a tiny word-level vocabulary.

Four of RULER's synthetic tasks, written anew for a model small enough to train on a CPU:
- `niah_single`: one `key -> value` needle in a haystack of filler sentences (RULER's niah_single_2, with
  generated filler sentences standing in for the Paul Graham essays);
- `niah_multikey`: several needles with distinct keys, one queried (niah_multikey_1);
- `kv_retrieval`: a long list of `key : value` pairs, one key queried (niah_multikey_3, RULER's KV task);
- `variable_tracking`: chains `var x1 = v`, `var x2 = var x1`, ... hidden in filler with distractor chains;
  the query asks for every variable equal to `v` (RULER's vt, num_hops 4).

Differences from RULER, all to keep the vocabulary a few thousand words so a tiny model can learn it:
keys and variable names are two-syllable pseudo-words, values are digit strings written one digit a token
(RULER uses 7-digit numbers, UUIDs and 5-letter names), and the answer prefix repeats the tokens that
precede the value in the needle (`... for KEY is :`), so that the answer is one induction step away.
Every token is a whitespace-separated word, so a prompt of `n` words is `n + 1` tokens with the BOS.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise

from harness import DataError

DIGITS = tuple("0123456789")
PUNCTUATION = (".", ",", ":", "?", "=", "{", "}")
FILLER_WORDS = tuple("""
grass green sky blue sun yellow river stone cloud rain wind tree leaf hill road house garden bird fish dog
cat horse apple bread milk water fire light dark warm cold quiet loud morning evening night summer winter
spring autumn city village market bridge tower window door table chair book paper pencil music song dance
story old new small large bright soft happy gentle slow fast walks runs sings reads writes sleeps grows
falls shines flows carries builds opens closes sees hears keeps brings makes takes gives holds moves here
there again often always never sometimes near far under over through across along behind before after
but or so then also very every each many few this these those we he she it our his her its
""".split())

_NIAH_INTRO = ("some special magic numbers are hidden within the following text . memorize them . "
               "i will quiz you about the numbers afterwards .")
_NIAH_NEEDLE = "one of the special magic numbers for {key} is : {value} ."
_NIAH_QUESTION = ("what is the special magic number for {key} mentioned in the provided text ? "
                  "the special magic number for {key} is :")
_KV_INTRO = "extract the value corresponding to the specified key in the list below . {"  # not formatted
_KV_PAIR = "{key} : {value} ,"
_KV_QUESTION = "key : {key} . the value associated with the specified key {key} :"
_VT_INTRO = "memorize and track the chains of variable assignments hidden in the following text ."
_VT_FIRST = "var {name} = {value} ."
_VT_NEXT = "var {name} = var {previous} ."
_VT_QUESTION = ("find all variables that are assigned the value {value} in the text above . answer : "
                "according to the chains of variables assigned in the text above , {count} variables "
                "are assigned the value {value} , they are :")
_TEMPLATES = (_NIAH_INTRO, _NIAH_NEEDLE, _NIAH_QUESTION, _KV_INTRO, _KV_PAIR, _KV_QUESTION, _VT_INTRO,
              _VT_FIRST, _VT_NEXT, _VT_QUESTION)
TEMPLATE_WORDS = tuple(sorted({w for t in _TEMPLATES for w in t.split()
                               if not w.startswith("{") or w == "{"} - set(PUNCTUATION)))

KEY_POOL_SIZE = 2048  # distinct keys one prompt can hold: kv_retrieval at 8K tokens needs about 1,170


def _key_words() -> tuple[str, ...]:
    """Two-syllable pseudo-words (`bako`, `tilu`, ...), picked with a fixed stride so the list never changes."""
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words = [a + b for a in syllables for b in syllables]
    taken = set(FILLER_WORDS) | set(TEMPLATE_WORDS)
    picked = (words[(i * 2003) % len(words)] for i in range(len(words)))  # 2003 is coprime with 4900
    return tuple(w for w in picked if w not in taken)[:KEY_POOL_SIZE]


KEY_WORDS = _key_words()


def vocabulary() -> list[str]:
    """Every word a prompt or answer can contain, in a fixed order (the tokenizer adds its special tokens)."""
    return [*DIGITS, *PUNCTUATION, *TEMPLATE_WORDS, *FILLER_WORDS, *KEY_WORDS]


@dataclass
class RulerSample:
    """One prompt (answer prefix included, as RULER feeds it) and the strings a correct answer contains.

    `context_length` counts the tokens the model reads: the prompt's words plus the BOS. `depth` is where the
    queried needle (or chain's first statement) sits, as a fraction of the haystack before it (RULER's
    depth percent / 100). `other_queries` are follow-up questions, each with its answers, about the other
    needles of the same context (RULER's multi-query variant); training uses them, scoring does not.
    """

    task: str
    prompt: str
    answers: list[str]
    context_length: int
    depth: float
    other_queries: list[tuple[str, list[str]]] = field(default_factory=list)


def _value(rng: random.Random, digits: int) -> str:
    return " ".join(rng.choice(DIGITS) for _ in range(digits))


def _distinct_values(rng: random.Random, count: int, digits: int) -> list[str]:
    values: dict[str, None] = {}
    while len(values) < count:
        values[_value(rng, digits)] = None
    return list(values)


def _keys(rng: random.Random, count: int, task: str) -> list[str]:
    if count > len(KEY_WORDS):
        raise DataError(f"{task} needs {count} distinct keys, the pool has {len(KEY_WORDS)}; ask for a shorter "
                        "context", field="context_length")
    return rng.sample(KEY_WORDS, count)


def _filler_sentences(rng: random.Random, words: int) -> list[list[str]]:
    """Random sentences of 4-12 filler words and a full stop, `words` tokens in all exactly."""
    sentences = []
    while words > 0:
        size = min(rng.randint(4, 12), words - 1)
        if words - (size + 1) == 1:  # never leave a lone token for the last sentence
            size += 1
        sentences.append([*rng.choices(FILLER_WORDS, k=size), "."])
        words -= size + 1
    return sentences


def _haystack_budget(task: str, context_length: int, fixed_words: int) -> int:
    budget = context_length - 1 - fixed_words
    if budget < 16:
        raise DataError(f"{task} needs a context of at least {fixed_words + 17} tokens, got {context_length}",
                        field="context_length")
    return budget


def _insert(sentences: list[list[str]], inserts: list[tuple[float, str]]) -> list[str]:
    """The haystack's words with each `(depth, text)` placed at the sentence boundary nearest `depth`."""
    at: dict[int, list[str]] = {}
    for depth, text in inserts:
        at.setdefault(round(depth * len(sentences)), []).extend(text.split())
    words: list[str] = []
    for i in range(len(sentences) + 1):
        words += at.get(i, [])
        if i < len(sentences):
            words += sentences[i]
    return words


def _sample(task: str, words: list[str], answers: list[str], depth: float,
            other_queries: list[tuple[str, list[str]]] | None = None) -> RulerSample:
    return RulerSample(task, " ".join(words), answers, len(words) + 1, depth, other_queries or [])


def niah_single(context_length: int, seed: int) -> RulerSample:
    return niah_multikey(context_length, seed, num_keys=1, task="niah_single")


def niah_multikey(context_length: int, seed: int, num_keys: int = 4, task: str = "niah_multikey") -> RulerSample:
    """`num_keys` needles at depths drawn uniformly; the first key drawn is the one asked about."""
    rng = random.Random(f"{task}:{context_length}:{seed}")
    keys = _keys(rng, num_keys, task)
    values = _distinct_values(rng, num_keys, 4)
    needles = [_NIAH_NEEDLE.format(key=k, value=v) for k, v in zip(keys, values, strict=True)]
    questions = [_NIAH_QUESTION.format(key=k) for k in keys]
    fixed = len(_NIAH_INTRO.split()) + sum(len(n.split()) for n in needles) + len(questions[0].split())
    sentences = _filler_sentences(rng, _haystack_budget(task, context_length, fixed))
    depths = [rng.random() for _ in keys]
    words = [*_NIAH_INTRO.split(), *_insert(sentences, list(zip(depths, needles, strict=True))), *questions[0].split()]
    others = [(q, [v]) for q, v in zip(questions[1:], values[1:], strict=True)]
    return _sample(task, words, [values[0]], depths[0], others)


def kv_retrieval(context_length: int, seed: int, follow_ups: int = 15) -> RulerSample:
    """As many pairs as fit (so the length is met within one pair, 6 tokens); the queried pair's index is
    drawn uniformly. `follow_ups` other pairs are asked about in `other_queries`."""
    task = "kv_retrieval"
    rng = random.Random(f"{task}:{context_length}:{seed}")
    pair_words = len(_KV_PAIR.split()) + 3  # a 4-digit value is 4 words, its placeholder 1
    fixed = len(_KV_INTRO.split()) + 1 + len(_KV_QUESTION.split())
    count = _haystack_budget(task, context_length, fixed) // pair_words
    keys = _keys(rng, count, task)
    values = [_value(rng, 4) for _ in keys]
    target = rng.randrange(count)
    pairs = [w for k, v in zip(keys, values, strict=True) for w in _KV_PAIR.format(key=k, value=v).split()]
    words = [*_KV_INTRO.split(), *pairs, "}", *_KV_QUESTION.format(key=keys[target]).split()]
    asked = rng.sample([i for i in range(count) if i != target], min(follow_ups, count - 1))
    others = [(_KV_QUESTION.format(key=keys[i]), [values[i]]) for i in asked]
    return _sample(task, words, [values[target]], target / max(count - 1, 1), others)


def variable_tracking(context_length: int, seed: int, num_hops: int = 4, num_chains: int = 3) -> RulerSample:
    """`num_chains` chains of `num_hops + 1` variables each, one statement a sentence boundary, in chain
    order; the first chain is queried, the others are distractors with their own values."""
    task = "variable_tracking"
    rng = random.Random(f"{task}:{context_length}:{seed}")
    names = _keys(rng, num_chains * (num_hops + 1), task)
    values = _distinct_values(rng, num_chains, 5)
    chains = [names[c * (num_hops + 1):(c + 1) * (num_hops + 1)] for c in range(num_chains)]
    statements = []
    for chain, value in zip(chains, values, strict=True):
        texts = [_VT_FIRST.format(name=chain[0], value=value)]
        texts += [_VT_NEXT.format(name=n, previous=p) for p, n in pairwise(chain)]
        statements.append(texts)
    questions = [_VT_QUESTION.format(value=v, count=_number(num_hops + 1)) for v in values]
    fixed = (len(_VT_INTRO.split()) + sum(len(t.split()) for s in statements for t in s)
             + len(questions[0].split()))
    sentences = _filler_sentences(rng, _haystack_budget(task, context_length, fixed))
    inserts, first_depth = [], 0.0
    for c, texts in enumerate(statements):
        depths = sorted(rng.random() for _ in texts)
        first_depth = depths[0] if c == 0 else first_depth
        inserts += list(zip(depths, texts, strict=True))
    words = [*_VT_INTRO.split(), *_insert(sentences, inserts), *questions[0].split()]
    others = [(q, list(chain)) for q, chain in zip(questions[1:], chains[1:], strict=True)]
    return _sample(task, words, list(chains[0]), first_depth, others)


def _number(n: int) -> str:
    return " ".join(str(n))


TASKS: dict[str, Callable[[int, int], RulerSample]] = {
    "niah_single": niah_single,
    "niah_multikey": niah_multikey,
    "kv_retrieval": kv_retrieval,
    "variable_tracking": variable_tracking,
}


def generate(task: str, context_length: int, num_samples: int, seed: int = 0) -> list[RulerSample]:
    """`num_samples` samples of `task`; sample `i` depends on (task, context_length, seed, i) alone."""
    if task not in TASKS:
        raise DataError(f"unknown RULER task {task!r}", field="task", hint=f"known: {', '.join(TASKS)}")
    return [TASKS[task](context_length, seed * 1_000_003 + i) for i in range(num_samples)]


def score_sample(prediction: str, answers: list[str]) -> float:
    """RULER's `string_match_all`: the fraction of the answers found in the prediction, ignoring case."""
    text = prediction.lower()
    return sum(answer.lower() in text for answer in answers) / len(answers)


def average(by_length: Mapping[int, float]) -> float:
    """RULER's Avg: the plain mean of a task's (or model's) score over the context lengths."""
    return sum(by_length.values()) / len(by_length)


def weighted_average_increasing(by_length: Mapping[int, float]) -> float:
    """RULER's wAvg (inc.): weights 1, 2, ..., L for the L lengths sorted from shortest to longest."""
    scores = [by_length[n] for n in sorted(by_length)]
    return sum((i + 1) * s for i, s in enumerate(scores)) / (len(scores) * (len(scores) + 1) / 2)
