"""Answer checking shared by the generated domains and users' GSM8K/BBH-style generations: a numeric target is
checked with math-verify (`parse` + `verify`, which also reads the final number out of a chain of thought);
any other target by exact match after normalisation (lower case, outer brackets and punctuation stripped,
the text after the last "answer is" when a generation has one, BBH's convention)."""
from __future__ import annotations

import re
from functools import lru_cache

_ANSWER_IS = re.compile(r"answer is\s*:?\s*(.+)$", re.IGNORECASE | re.DOTALL)
_NUMBER = re.compile(r"^-?\d[\d,]*(\.\d+)?$")


def final_target(target: str) -> str:
    """GSM8K's reference solutions end in `#### ANSWER`; the answer is what follows the last `####`."""
    return target.rsplit("####", 1)[-1].strip() if "####" in target else target.strip()


def is_numeric(target: str) -> bool:
    return bool(_NUMBER.match(final_target(target).replace(" ", "")))


def normalise(text: str) -> str:
    """Lower case, the last 'answer is ...' part if any, surrounding brackets, quotes and full stops removed."""
    found = _ANSWER_IS.search(text)
    text = (found.group(1) if found else text).strip().lower()
    text = text.split("\n", 1)[0].strip()
    return text.strip(" .\"'`*").strip("()[]").strip()


@lru_cache(maxsize=65536)
def numeric_match(generation: str, target: str) -> bool:
    """math-verify's equivalence of the generation's final answer with the target's."""
    from math_verify import parse, verify

    gold = parse(final_target(target))
    return bool(gold) and bool(verify(gold, parse(generation)))


def is_correct(generation: str, target: str) -> bool:
    """The generation answers the target: math-verify for numbers, normalised exact match otherwise."""
    if is_numeric(target):
        return numeric_match(generation, target)
    return normalise(generation) == normalise(final_target(target))
