"""Generated SST-2 / RTE / CB / BoolQ-format tasks, each with a pre-training rule and a shifted target rule.

No real text-classification dataset ships inside a PyPI package that this project can install offline (the
GLUE/SuperGLUE files are hub downloads; `prompts.load_jsonl` reads them when a user has them), so the tiny
models learn and are tested on generated ones. Every example is a short review whose four adjectives carry
valences -2..+2 (their sum is the latent score s); the four formats ask different questions of it, and the
label under the pre-training rule and under the target rule are two thresholds of s. The tiny model learns
s during pre-training and fine-tuning must move a decision boundary it already has, the way a real LLM's
zero-shot prompt sits near but not on the task's boundary (the paper's Zero-Shot rows are 46-66 %):
- sst2: "great" iff s > 0 before, s > 2 after (harsher critics).
- rte: does the review entail "the critic liked the X"? "Yes" iff s > 0 before, s > 1 after.
- cb: the same hypothesis, three-way: "Maybe" iff |s| <= 1 before, |s| <= 3 after; else "Yes" if s > 0,
  "No" if s < 0.
- boolq: "was the X a hit?" "Yes" iff s > 0 before, s > 3 after.
Versions that need more than one threshold of s were tried first and stayed at chance in pre-training
(measured): premise-hypothesis matching (claims about a person checked against a description; 4,000 steps
of all four tasks, and 1,500 steps of batch 64 of BoolQ alone) and a stance that flips the answer ("liked"
or "disliked": the XOR of the stance and the sign of s; 1,500 steps of RTE and BoolQ alone, against 800
steps for the fixed stance to reach 100 %).
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
RULES = ("pretrain", "target")


@dataclass(frozen=True)
class LabelledText:
    fields: dict[str, str]
    labels: dict[str, int]  # rule -> label index into the template's options


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else " , ".join(parts[:-1]) + " and " + parts[-1]


def _review(rng: random.Random) -> tuple[str, str, int]:
    """(reviewed noun, "the X was a , b , c and d .", the valence sum s != 0)."""
    words = list(VALENCES)
    while True:
        adjectives = [rng.choice(words) for _ in range(4)]
        score = sum(VALENCES[a] for a in adjectives)
        if score != 0:
            noun = rng.choice(REVIEWED)
            return noun, f"the {noun} was {_join(adjectives)} .", score


def _sst2(rng: random.Random) -> LabelledText:
    _, sentence, score = _review(rng)
    return LabelledText({"sentence": sentence}, {"pretrain": int(score > 0), "target": int(score > 2)})


def _rte(rng: random.Random) -> LabelledText:
    noun, sentence, score = _review(rng)
    return LabelledText({"premise": sentence, "hypothesis": f"the critic liked the {noun}"},
                        {"pretrain": 0 if score > 0 else 1, "target": 0 if score > 1 else 1})


def _cb(rng: random.Random) -> LabelledText:
    noun, sentence, score = _review(rng)

    def verdict(margin: int) -> int:
        return 2 if abs(score) <= margin else (0 if score > 0 else 1)

    return LabelledText({"premise": sentence, "hypothesis": f"the critic liked the {noun}"},
                        {"pretrain": verdict(1), "target": verdict(3)})


def _boolq(rng: random.Random) -> LabelledText:
    noun, sentence, score = _review(rng)
    return LabelledText({"passage": sentence, "question": f"was the {noun} a hit"},
                        {"pretrain": int(score > 0), "target": int(score > 3)})


GENERATORS: dict[str, Callable[[random.Random], LabelledText]] = {
    "sst2": _sst2, "rte": _rte, "cb": _cb, "boolq": _boolq,
}


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
    template_words = ("the was and , . it does this mean that \" is true ? yes or no suppose can we infer "
                      "maybe terrible great critic liked a hit")
    return sorted({*VALENCES, *REVIEWED, *template_words.split()})
