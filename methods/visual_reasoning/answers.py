"""Robust answer extraction from a model's free text: option letters, numbers, move sequences, permutations.

Each extractor first narrows the text to its answer span (the last `<answer>...</answer>`, else what follows
the last "answer is" / "answer:", else the last `\\boxed{...}`, else the whole text) and returns None when no
answer of its kind is there, so an unparseable answer is counted as unanswered, never guessed.

Move sequences skip directions a clause negates ("can't go left", "not up", "instead of right", "left is a hole")
and refuse hedged ones ("maybe left or down"), and unmarked text gives moves only when they stand in one sentence:
stray direction words in free reasoning are not read as a path (issue 56).
"""
from __future__ import annotations

import re
from collections.abc import Mapping

_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_PHRASE = re.compile(r"\banswer\b(?:\s+is)?\s*[:：=]?\s*", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_MARKUP = re.compile(r"[*_`$]|\\text\{|\\mathrm\{")
_WORD_NUMBERS = {word: value for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())} | {word: 10 * tens for tens, word in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_NUMBER = re.compile(r"(?<![\w.])[-−–]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|(?<![\w.])[-−–]?\d+(?:\.\d+)?")
_WORD_NUMBER = re.compile(r"\b(" + "|".join(_WORD_NUMBERS) + r")"
                          r"(?:[- ](one|two|three|four|five|six|seven|eight|nine))?\b", re.IGNORECASE)
_MOVE_WORDS = {"up": "U", "down": "D", "left": "L", "right": "R", "north": "U", "south": "D", "west": "L",
               "east": "R", "u": "U", "d": "D", "l": "L", "r": "R", "↑": "U", "↓": "D", "←": "L", "→": "R"}
_MOVE_TOKEN = re.compile(r"\b(?:up|down|left|right|north|south|west|east)\b|(?<!['’])\b[udlr]\b(?!['’])|[↑↓←→]",
                         re.IGNORECASE)  # a lone letter, but not the "d" of "I'd"
_SENTENCE_END = re.compile(r"(?<=[.!?\n])")  # split after the mark: a "?" stays to hedge its sentence
_CLAUSE_END = re.compile(r"[,;:]|\b(?:but|so|then|thus|hence|instead(?!\s+of))\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|avoid(?:s|ing)?|without|except|instead\s+of|rather\s+than)\b"
                       r"|n['’]t\b", re.IGNORECASE)  # negates the directions after it in its clause
_NEGATED_AFTER = re.compile(r"^\s+(?:is|was|would\s+be|leads?|goes|hits)\b.*\b(?:blocked|holes?|walls?|impossible"
                            r"|invalid|wrong|not|n['’]t)\b", re.IGNORECASE)  # "left is a hole": negated by what follows
_HEDGE = re.compile(r"\b(?:maybe|perhaps|possibly|probably|might|either|or)\b|\?", re.IGNORECASE)
_MOVE_RUN = re.compile(r"^[UDLR↑↓←→]+$", re.IGNORECASE)


def answer_span(text: str) -> str:
    """The part of `text` that holds the answer, with Markdown/LaTeX emphasis removed."""
    return _marked_span(text)[0]


def _marked_span(text: str) -> tuple[str, bool]:
    """The answer span, and whether the text marked it (a tag, an "answer" phrase, a box) or it is all the text."""
    tags = _TAG.findall(text)
    if tags:
        span, marked = tags[-1], True
    else:
        phrases = list(_PHRASE.finditer(text))
        boxed = _BOXED.findall(text)
        span = text[phrases[-1].end():] if phrases else (boxed[-1] if boxed else text)
        marked = bool(phrases or boxed)
        inner = _BOXED.findall(span)
        span = inner[-1] if inner else span
    return _MARKUP.sub("", span).replace("}", "").strip(), marked


def option_letter(text: str, options: Mapping[str, str]) -> str | None:
    """The chosen option's letter: "(B)", "B", "b)", "Option B: top-right", or the option's own text
    ("top right"); the article "A" before a lower-case word ("A blue square is ...") is not an option."""
    letters = "".join(options)
    for candidate in (answer_span(text), text):
        bracketed = re.findall(rf"[(\[]([{letters}])[)\]]", candidate, re.IGNORECASE)
        if bracketed:
            return bracketed[0].upper()
        for match in re.finditer(rf"(?<![\w'-])([{letters}])(?![\w'-])", candidate, re.IGNORECASE):
            letter, after = match.group(1), candidate[match.end():match.end() + 2]
            article = letter in "Aa" and re.match(r"\s[a-z]", after) is not None
            alone = candidate.strip(" .:)").lower() == letter.lower()
            if (letter.isupper() or alone) and not article:
                return letter.upper()
        named = [letter for letter, name in options.items() if _loose(name) in _loose(candidate)]
        if len(named) == 1:
            return named[0]
    return None


def _loose(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.lower()).replace("upper", "top").replace("lower", "bottom")


def number(text: str) -> float | None:
    """The first number of a marked answer span ("The answer is 35 because ...") or the last of unmarked text
    ("... so bar C is 35."): "1,234.5", "−3", "35%", or a number word up to ninety-nine ("thirty-five")."""
    span, marked = _marked_span(text)
    pick = 0 if marked else -1
    for candidate in (span, text):
        found = _NUMBER.findall(candidate)
        if found:
            return float(found[pick].replace(",", "").replace("−", "-").replace("–", "-"))
        words = _WORD_NUMBER.findall(candidate)
        if words:
            tens, unit = words[pick]
            return float(_WORD_NUMBERS[tens.lower()] + (_WORD_NUMBERS[unit.lower()] if unit else 0))
    return None


def moves(text: str) -> str | None:
    """The move sequence as letters from U/D/L/R: "R R D", "right, right, down", "RRD", "['R', 'D']", "→→↓".
    Negated directions are skipped, a hedged one makes the answer None, and unmarked text counts only when
    its moves stand in one sentence ("I can't go left, so right then down" is RD; "Go up. Then left." is None)."""
    span, marked = _marked_span(text)
    compact = re.sub(r"[\s,;'\"\[\]().>-]+", "", span)
    if compact and _MOVE_RUN.match(compact):
        return "".join(_MOVE_WORDS[c.lower()] for c in compact)
    stated = _stated_moves(span)
    if stated is None or (not marked and len({sentence for sentence, _ in stated}) > 1):
        return None
    return "".join(move for _, move in stated) or None


def _stated_moves(text: str) -> list[tuple[int, str]] | None:
    """(sentence number, move) of each direction the text affirms; None when a clause that affirms one hedges."""
    stated = []
    for index, sentence in enumerate(_SENTENCE_END.split(text)):
        for clause in _CLAUSE_END.split(sentence):
            negation = _NEGATION.search(clause)
            affirmed = [_MOVE_WORDS[m.group().lower()] for m in _MOVE_TOKEN.finditer(clause)
                        if not (negation and m.start() >= negation.start())
                        and not _NEGATED_AFTER.match(clause[m.end():])]
            if affirmed and _HEDGE.search(clause):
                return None
            stated += [(index, move) for move in affirmed]
    return stated


def permutation(text: str, size: int) -> list[int] | None:
    """The tile numbers of the answer span when they are a permutation of 0..size-1; a permutation of
    1..size (numbered from one) is shifted down. None for anything else."""
    values = [int(v) for v in re.findall(r"\d+", answer_span(text))]
    if len(values) != size:
        return None
    if sorted(values) == list(range(size)):
        return values
    if sorted(values) == list(range(1, size + 1)):
        return [v - 1 for v in values]
    return None
