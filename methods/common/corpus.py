"""The generated four-domain corpus (MiCRo's brain networks in miniature): logic (arithmetic and transitive
comparisons), social (Sally-Anne false-belief stories), world (closed-book QA over a synthetic fact base) and
language (subject-verb agreement judgements).

Every example is one line `q : QUESTION a : ANSWER`, whitespace-tokenised, with a one-word answer that a rule
computes from the question (numbers are words too: 0 ... 99). Each domain has training templates and one
held-out template (`ood`) that no training or dev example uses. Splits are disjoint by question text; world
questions are split by entity (a test entity's facts appear only as statements in training, never as QA).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

DOMAINS = ("logic", "social", "world", "language")
NUMERIC_DOMAINS = ("logic",)  # answers checked with math-verify; the others by exact match
SPLITS = ("train", "dev", "test")

NAMES = ("anna", "ben", "carl", "dina", "emma", "finn", "gina", "hugo", "ivy", "jack", "kate", "liam")
OBJECTS = ("ball", "key", "coin", "book", "cake", "doll")
PLACES = ("box", "basket", "drawer", "bag", "cupboard", "jar")
SINGULAR = ("dog", "teacher", "car", "girl", "farmer", "king", "doctor", "cat")
PLURAL = ("dogs", "teachers", "cars", "girls", "farmers", "kings", "doctors", "cats")
ADJECTIVES = ("happy", "red", "old", "tall", "small", "quiet")
CITIES = ("lumo", "varsa", "tenik", "orla", "brisk", "dunmor", "pell", "quorra")
FOODS = ("grain", "fish", "honey", "roots", "berries", "seeds")
_SYLLABLES = ("ka", "zor", "mi", "tel", "bu", "ran", "vo", "shi", "gol", "pa", "nex", "du")


@dataclass(frozen=True)
class Example:
    """One question with its answer; `template` names its phrasing, `ood` marks a held-out template."""

    id: str
    domain: str
    template: str
    question: str
    answer: str
    ood: bool = False

    @property
    def prompt(self) -> str:
        return f"q : {self.question} a :"

    @property
    def text(self) -> str:
        return f"{self.prompt} {self.answer}"


Template = Callable[[random.Random], tuple[str, str]]  # rng -> (question, answer)


def _plus(rng: random.Random) -> tuple[str, str]:
    a, b = rng.randrange(50), rng.randrange(50)
    return f"what is {a} plus {b} ?", str(a + b)


def _minus(rng: random.Random) -> tuple[str, str]:
    a = rng.randrange(100)
    b = rng.randrange(a + 1)
    return f"what is {a} minus {b} ?", str(a - b)


def _bigger(rng: random.Random) -> tuple[str, str]:
    x, y, z = rng.sample(NAMES, 3)
    forward = rng.random() < 0.5
    ask = f"is {x} bigger than {z} ?" if forward else f"is {z} bigger than {x} ?"
    return f"{x} is bigger than {y} . {y} is bigger than {z} . {ask}", "yes" if forward else "no"


def _plus_ood(rng: random.Random) -> tuple[str, str]:
    a, b = rng.randrange(50), rng.randrange(50)
    return f"{a} plus {b} is what ?", str(a + b)


def _story(rng: random.Random) -> tuple[str, str, str, str, str]:
    p, q = rng.sample(NAMES, 2)
    first, second = rng.sample(PLACES, 2)
    return p, q, rng.choice(OBJECTS), first, second


def _moved(p: str, q: str, obj: str, first: str, second: str, watched: bool = False) -> str:
    """The story every social question asks about: q moves p's object while p is away (or while p watches)."""
    away = "stays" if watched else "leaves"
    return f"{p} puts the {obj} in the {first} . {p} {away} . {q} moves the {obj} to the {second} . "


def _false_belief(rng: random.Random) -> tuple[str, str]:
    p, q, obj, first, second = _story(rng)
    return _moved(p, q, obj, first, second) + f"where will {p} look for the {obj} ?", first


def _true_belief(rng: random.Random) -> tuple[str, str]:
    p, q, obj, first, second = _story(rng)
    return _moved(p, q, obj, first, second, watched=True) + f"where will {p} look for the {obj} ?", second


def _reality(rng: random.Random) -> tuple[str, str]:
    p, q, obj, first, second = _story(rng)
    return _moved(p, q, obj, first, second) + f"where is the {obj} ?", second


def _false_belief_ood(rng: random.Random) -> tuple[str, str]:
    p, q, obj, first, second = _story(rng)
    return _moved(p, q, obj, first, second) + f"{p} comes back . where will {p} look for the {obj} ?", first


def _agreement(rng: random.Random, attractor: bool, relative: bool = False) -> tuple[str, str]:
    plural = rng.random() < 0.5
    index = rng.randrange(len(SINGULAR))
    subject = (PLURAL if plural else SINGULAR)[index]
    grammatical = rng.random() < 0.5
    verb = "are" if plural == grammatical else "is"
    other = rng.choice(PLURAL if rng.random() < 0.5 else SINGULAR)
    middle = f" that the {other} saw" if relative else f" near the {other}" if attractor else ""
    return (f"the {subject}{middle} {verb} {rng.choice(ADJECTIVES)} . is this sentence grammatical ?",
            "yes" if grammatical else "no")


TEMPLATES: dict[str, dict[str, Template]] = {
    "logic": {"plus": _plus, "minus": _minus, "bigger": _bigger},
    "social": {"false_belief": _false_belief, "true_belief": _true_belief, "reality": _reality},
    "language": {"simple": lambda rng: _agreement(rng, False), "attractor": lambda rng: _agreement(rng, True)},
}
OOD_TEMPLATES: dict[str, dict[str, Template]] = {
    "logic": {"plus_reordered": _plus_ood},
    "social": {"false_belief_return": _false_belief_ood},
    "language": {"relative_clause": lambda rng: _agreement(rng, False, relative=True)},
}


@dataclass(frozen=True)
class FactBase:
    """The world domain's synthetic facts: each entity lives in a city and eats a food."""

    entities: tuple[str, ...]
    city: dict[str, str]
    food: dict[str, str]

    def statements(self) -> list[str]:
        return [s for e in self.entities
                for s in (f"the {e} lives in {self.city[e]} .", f"the {e} eats {self.food[e]} .")]


def fact_base(entities: int, seed: int) -> FactBase:
    """`entities` made-up two-syllable names with a random city and food each."""
    rng = random.Random(f"facts-{seed}")
    names = sorted({a + b for a in _SYLLABLES for b in _SYLLABLES if a != b})
    chosen = tuple(rng.sample(names, entities))
    return FactBase(chosen, {e: rng.choice(CITIES) for e in chosen}, {e: rng.choice(FOODS) for e in chosen})


def world_questions(facts: FactBase, entity: str, ood: bool) -> list[tuple[str, str, str]]:
    """(template, question, answer) for both relations of `entity`."""
    if ood:
        return [("live_reordered", f"the {entity} lives where ?", facts.city[entity]),
                ("eat_reordered", f"the {entity} eats what ?", facts.food[entity])]
    return [("live", f"where does the {entity} live ?", facts.city[entity]),
            ("eat", f"what does the {entity} eat ?", facts.food[entity])]


@dataclass(frozen=True)
class CorpusConfig:
    """What the corpus holds: examples per domain and split, the fact base's size, the generator's seed."""

    train_per_domain: int = 1500
    dev_per_domain: int = 100
    test_per_domain: int = 100
    ood_per_domain: int = 100
    entities: int = 120
    seed: int = 0


@dataclass(frozen=True)
class Corpus:
    """The examples by split (test holds the in-distribution and the held-out-template examples) and the fact
    statements the world domain's training text carries."""

    train: tuple[Example, ...]
    dev: tuple[Example, ...]
    test: tuple[Example, ...]
    statements: tuple[str, ...]

    def split(self, name: str) -> tuple[Example, ...]:
        return {"train": self.train, "dev": self.dev, "test": self.test}[name]


def _sample(domain: str, templates: dict[str, Template], count: int, rng: random.Random, seen: set[str],
            split: str, ood: bool) -> list[Example]:
    """`count` questions none of which is in `seen` (the earlier splits'); training questions may repeat."""
    names = sorted(templates)
    examples: list[Example] = []
    own: set[str] = set()
    tries = 0
    while len(examples) < count:
        tries += 1
        if tries > 200 * count:
            raise ValueError(f"cannot draw {count} distinct {domain} questions for {split}")
        name = names[len(examples) % len(names)]
        question, answer = templates[name](rng)
        if question in seen or (split != "train" and question in own):
            continue
        own.add(question)
        examples.append(Example(f"{domain}-{split}{'-ood' if ood else ''}-{len(examples)}", domain, name, question,
                                answer, ood))
    seen.update(own)
    return examples


def _world(config: CorpusConfig, facts: FactBase, rng: random.Random) -> dict[str, list[Example]]:
    """World QA split by entity: 60% train, 20% dev, 20% test; OOD phrasing asked about the test entities."""
    entities = list(facts.entities)
    rng.shuffle(entities)
    cut_a, cut_b = int(0.6 * len(entities)), int(0.8 * len(entities))
    groups = {"train": entities[:cut_a], "dev": entities[cut_a:cut_b], "test": entities[cut_b:]}
    out: dict[str, list[Example]] = {}
    for split, members in groups.items():
        rows = [(t, q, a, False) for e in members for t, q, a in world_questions(facts, e, False)]
        if split == "test":
            rows += [(t, q, a, True) for e in members for t, q, a in world_questions(facts, e, True)]
        out[split] = [Example(f"world-{split}{'-ood' if o else ''}-{i}", "world", t, q, a, o)
                      for i, (t, q, a, o) in enumerate(rows)]
    return out


def build_corpus(config: CorpusConfig = CorpusConfig()) -> Corpus:
    """The corpus for `config`: the same config always gives the same examples."""
    rng = random.Random(f"corpus-{config.seed}")
    facts = fact_base(config.entities, config.seed)
    splits: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for domain in ("logic", "social", "language"):
        seen: set[str] = set()
        for split, count in (("test", config.test_per_domain), ("dev", config.dev_per_domain),
                             ("train", config.train_per_domain)):
            splits[split] += _sample(domain, TEMPLATES[domain], count, rng, seen, split, ood=False)
        splits["test"] += _sample(domain, OOD_TEMPLATES[domain], config.ood_per_domain, rng, seen, "test", ood=True)
    for split, examples in _world(config, facts, rng).items():
        splits[split] += examples
    return Corpus(tuple(splits["train"]), tuple(splits["dev"]), tuple(splits["test"]), tuple(facts.statements()))


def vocabulary(config: CorpusConfig = CorpusConfig()) -> list[str]:
    """Every word the corpus can use (all templates, held-out ones too), sorted: the tokenizer's words."""
    words = {str(n) for n in range(100)} | set(NAMES + OBJECTS + PLACES + SINGULAR + PLURAL + ADJECTIVES + CITIES
                                               + FOODS)
    corpus = build_corpus(config)
    for example in (*corpus.train, *corpus.dev, *corpus.test):
        words.update(example.text.split())
    for statement in corpus.statements:
        words.update(statement.split())
    return sorted(words)
