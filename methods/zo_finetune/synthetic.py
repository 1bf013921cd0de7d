"""Generated SST-2 / RTE / CB / BoolQ-format tasks, each with a pre-training rule and a shifted target rule.

No real text-classification dataset ships inside a PyPI package that this project can install offline (the
GLUE/SuperGLUE files are hub downloads; `prompts.load_jsonl` reads them when a user has them), so the tiny
models learn and are tested on generated ones. Each example has a latent count; its label under the
pre-training rule and under the target rule are two thresholds of that count, so the tiny model learns the
count during pre-training and fine-tuning must move a decision boundary it already has, the way a real
LLM's zero-shot prompt sits near but not on the task's boundary (the paper's Zero-Shot rows are 46-66 %):
- sst2: four adjectives with valences -2..+2; "great" iff the sum is > 0 before, > 2 after (harsher critics).
- rte: the hypothesis makes three claims about a person the premise describes; "Yes" iff >= 2 hold before,
  all 3 after (strict entailment).
- cb: the hypothesis makes two claims; "Maybe" iff neither is mentioned before, iff either is unmentioned
  after; otherwise "No" if a mentioned claim is false, else "Yes".
- boolq: the question asks two properties of an object; "Yes" iff either holds before, both after.
`rule_agreement` is the accuracy a model that learned the pre-training rule perfectly gets zero-shot.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from methods.zo_finetune.prompts import PromptExample, template

VALENCES = {
    **dict.fromkeys(("wonderful", "brilliant", "superb", "stunning", "magnificent", "delightful"), 2),
    **dict.fromkeys(("good", "nice", "fine", "pleasant", "charming", "solid", "decent", "fresh"), 1),
    **dict.fromkeys(("dull", "weak", "flat", "bland", "slow", "messy", "clumsy", "stale"), -1),
    **dict.fromkeys(("awful", "dreadful", "horrible", "painful", "disastrous", "miserable"), -2),
}
REVIEWED = ("movie", "film", "plot", "story", "cast", "script", "ending", "soundtrack", "acting", "sequel")
NAMES = ("anna", "ben", "carla", "david", "emma", "felix", "grace", "henry", "iris", "jack", "kate", "leo",
         "maria", "nina", "oscar", "paul", "rosa", "sam", "tina", "victor")
PERSON = {  # attribute -> (phrase with {} for the value, values)
    "car": ("drives a {} car", ("red", "blue", "green", "black", "white", "silver", "yellow", "brown")),
    "city": ("lives in {}", ("paris", "berlin", "madrid", "rome", "vienna", "oslo", "lisbon", "prague")),
    "pet": ("owns a {}", ("dog", "cat", "parrot", "rabbit", "horse", "turtle", "hamster", "goat")),
    "food": ("eats {}", ("rice", "pasta", "soup", "bread", "fish", "salad", "cheese", "beans")),
}
OBJECTS = ("box", "chair", "table", "lamp", "door", "bottle", "basket", "bench", "shelf", "bowl")
PROPERTIES = (("red", "blue", "green", "black", "white", "yellow"), ("small", "large", "tall", "short", "wide"),
              ("wooden", "metal", "plastic", "glass", "stone"))
RULES = ("pretrain", "target")


@dataclass(frozen=True)
class LabelledText:
    fields: dict[str, str]
    labels: dict[str, int]  # rule -> label index into the template's options


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else " , ".join(parts[:-1]) + " and " + parts[-1]


def _sst2(rng: random.Random) -> LabelledText:
    words = list(VALENCES)
    while True:
        adjectives = [rng.choice(words) for _ in range(4)]
        score = sum(VALENCES[a] for a in adjectives)
        if score != 0:
            break
    sentence = f"the {rng.choice(REVIEWED)} was {_join(adjectives)} ."
    return LabelledText({"sentence": sentence}, {"pretrain": int(score > 0), "target": int(score > 2)})


def _person(rng: random.Random) -> tuple[str, dict[str, str]]:
    return rng.choice(NAMES), {attribute: rng.choice(values) for attribute, (_, values) in PERSON.items()}


def _claim(attribute: str, value: str) -> str:
    return PERSON[attribute][0].format(value)


def _other(attribute: str, value: str, rng: random.Random) -> str:
    return rng.choice([v for v in PERSON[attribute][1] if v != value])


def _rte(rng: random.Random) -> LabelledText:
    name, person = _person(rng)
    premise = f"{name} {_join([_claim(a, v) for a, v in person.items()])} ."
    claimed = rng.sample(list(PERSON), 3)
    holding = rng.randint(0, 3)
    true_ones = set(rng.sample(claimed, holding))
    claims = [_claim(a, person[a] if a in true_ones else _other(a, person[a], rng)) for a in claimed]
    return LabelledText({"premise": premise, "hypothesis": f"{name} {_join(claims)}"},
                        {"pretrain": 0 if holding >= 2 else 1, "target": 0 if holding == 3 else 1})


def _cb(rng: random.Random) -> LabelledText:
    name, person = _person(rng)
    claimed = rng.sample(list(PERSON), 2)
    unmentioned = set(rng.sample(claimed, rng.randint(0, 2)))
    mentioned = [a for a in PERSON if a not in unmentioned]
    premise = f"{name} {_join([_claim(a, person[a]) for a in mentioned])} ."
    false_ones = {a for a in claimed if a not in unmentioned and rng.random() < 0.4}
    claims = [_claim(a, _other(a, person[a], rng) if a in false_ones else person[a]) for a in claimed]
    verdict = 1 if false_ones else 0  # "No" if a mentioned claim is false, else "Yes"
    return LabelledText({"premise": premise, "hypothesis": f"{name} {_join(claims)}"},
                        {"pretrain": 2 if len(unmentioned) == 2 else verdict,
                         "target": 2 if unmentioned else verdict})


def _boolq(rng: random.Random) -> LabelledText:
    thing = rng.choice(OBJECTS)
    values = [rng.choice(group) for group in PROPERTIES]
    asked = rng.sample(range(len(PROPERTIES)), 2)
    holding = rng.randint(0, 2)
    true_ones = set(rng.sample(asked, holding))
    question = [values[i] if i in true_ones else rng.choice([v for v in PROPERTIES[i] if v != values[i]])
                for i in asked]
    return LabelledText({"passage": f"the {thing} is {_join(values)} .", "question": f"is the {thing} {_join(question)}"},
                        {"pretrain": int(holding >= 1), "target": int(holding == 2)})


GENERATORS: dict[str, Callable[[random.Random], LabelledText]] = {"sst2": _sst2, "rte": _rte, "cb": _cb, "boolq": _boolq}


def labelled_texts(task: str, count: int, seed: int, rule: str = "target") -> list[LabelledText]:
    """Examples whose labels under `rule` are balanced: each draws its label first, then a text with it."""
    if task not in GENERATORS:
        raise ValueError(f"unknown task {task!r}; the generated tasks are {', '.join(GENERATORS)}")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    rng = random.Random(f"{task}:{rule}:{seed}")
    classes = len(template(task).options)
    texts = []
    for _ in range(count):
        wanted = rng.randrange(classes)
        text = GENERATORS[task](rng)
        while text.labels[rule] != wanted:
            text = GENERATORS[task](rng)
        texts.append(text)
    return texts


def examples(task: str, count: int, seed: int, rule: str = "target") -> list[PromptExample]:
    """`count` examples of `task` in MeZO's template, labelled by `rule` ("pretrain" or "target")."""
    spec = template(task)
    return [PromptExample(spec.render(t.fields), spec.options, t.labels[rule])
            for t in labelled_texts(task, count, seed, rule)]


def rule_agreement(task: str, count: int = 2000, seed: int = 0) -> float:
    """How often the two rules agree on target-rule examples: a perfect pre-training-rule model's zero-shot accuracy."""
    texts = labelled_texts(task, count, seed)
    return sum(t.labels["pretrain"] == t.labels["target"] for t in texts) / len(texts)


def vocabulary() -> list[str]:
    """Every word the generated prompts and the templates use, lower-cased, punctuation included."""
    words = {*VALENCES, *REVIEWED, *NAMES, *OBJECTS, *(v for group in PROPERTIES for v in group)}
    for phrase, values in PERSON.values():
        words.update(phrase.replace("{}", "").split())
        words.update(values)
    template_words = ("the was and , . it does this mean that \" is true ? yes or no suppose can we infer "
                      "maybe terrible great")
    words.update(template_words.split())
    return sorted(words)
