"""The policy's vocabulary and sequence layout.

A sequence is `<bos> <objective>... <source SMILES> <think> <plan> <ans> <answer script> <eos>`: the prompt runs
to `<think>`, the completion is the plan and the answer. The LLM's free-text reasoning is realised as a plan of
edit tokens [inferred: the spec's "optional reasoning prefix: a sequence of edit tokens"]: the heavy-atom and
ring counts the model intends to add or remove (`+O`, `-C`, `+ring`); its length is the reasoning-length
diagnostic (T-DePO-3).

The answer is written as an edit script over the source's SMILES tokens: `<copy>` emits the next source token,
`<skip>` drops it, any SMILES token is inserted, and `<eos>` copies the rest. Every answer SMILES has a script
(difflib's alignment of the two token lists), so the reference answers are scripts too. A model of a third of a
million parameters cannot learn to copy a 40-token SMILES by attention in minutes of CPU training (a first
version wrote answers token by token: 20 % were valid, at similarity 0.15); with the script, copying is one
token, and the model learns where and what to edit [inferred: our device, not the paper's].
"""
from __future__ import annotations

import difflib
import re
from collections import Counter

from rdkit import Chem

from methods.molecule_opt.objectives import KNOWN, Objectives

SMILES_TOKEN = re.compile(r"\[[^\]]+\]|Cl|Br|[BCNOSPFIbcnosp]|[()=#\-+\\/.%@]|\d")
SMILES_TOKENS = ("C", "c", "N", "n", "O", "o", "S", "s", "F", "Cl", "Br", "[nH]", "[H]", "(", ")", "=", "#", "-",
                 "/", "\\", "[C@H]", "[C@@H]", "[C@]", "[C@@]", *map(str, range(1, 10)))
PLAN_ELEMENTS = ("C", "N", "O", "S", "F", "Cl", "Br", "ring")
PLAN_TOKENS = tuple(f"{sign}{e}" for e in PLAN_ELEMENTS for sign in "+-")
OBJECTIVE_TOKENS = tuple(f"<{p}{sign}>" for p in KNOWN for sign in "+-")
PAD, BOS, EOS, UNK, THINK, ANS = "<pad>", "<bos>", "<eos>", "<unk>", "<think>", "<ans>"
COPY, SKIP = "<copy>", "<skip>"
VOCAB = (PAD, BOS, EOS, UNK, THINK, ANS, COPY, SKIP, *OBJECTIVE_TOKENS, *PLAN_TOKENS, *SMILES_TOKENS)
INDEX = {token: i for i, token in enumerate(VOCAB)}
PLAN_LIMIT = 6  # plan tokens written at most (a longer plan is cut)


def ids(tokens: list[str]) -> list[int]:
    return [INDEX.get(token, INDEX[UNK]) for token in tokens]


def smiles_tokens(smiles: str) -> list[str]:
    return SMILES_TOKEN.findall(smiles)


def prompt(objectives: Objectives, source: str) -> list[int]:
    return ids([BOS, *(f"<{o}>" for o in objectives), *smiles_tokens(source), THINK])


def plan(source: str, target: str) -> list[str]:
    """The edit tokens from `source` to `target`: one per heavy atom (by element) and ring gained or lost."""
    def counts(smiles: str) -> Counter[str]:
        mol = Chem.MolFromSmiles(smiles)
        found = Counter(atom.GetSymbol() for atom in mol.GetAtoms())
        found["ring"] = mol.GetRingInfo().NumRings()
        return found

    before, after = counts(source), counts(target)
    edits = [f"{'+' if after[e] > before[e] else '-'}{e}" for e in PLAN_ELEMENTS
             for _ in range(abs(after[e] - before[e]))]
    return edits[:PLAN_LIMIT]


def script(source: str, answer: str) -> list[str]:
    """The edit script turning `source`'s SMILES tokens into `answer`'s, trailing copies left to `<eos>`."""
    before, after = smiles_tokens(source), smiles_tokens(answer)
    steps: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        steps += [COPY] * (i2 - i1) if op == "equal" else [SKIP] * (i2 - i1) + after[j1:j2]
    while steps and steps[-1] == COPY:
        steps.pop()
    return steps


def apply_script(source: str, steps: list[str]) -> str:
    """The SMILES an edit script writes from `source` (past the source's end, `<copy>` and `<skip>` do nothing)."""
    before, out, at = smiles_tokens(source), [], 0
    for step in steps:
        if step in (COPY, SKIP):
            out += before[at:at + 1] if step == COPY else []
            at += 1
        else:
            out.append(step)
    return "".join(out + before[at:])


def completion(source: str, answer: str, plan_tokens: list[str]) -> list[int]:
    return ids([*plan_tokens, ANS, *script(source, answer), EOS])


def split_completion(source: str, tokens: list[int]) -> tuple[list[int], str]:
    """(the plan's token ids before `<ans>`, the answer SMILES its script writes up to `<eos>`); a completion
    without `<ans>` or `<eos>` (cut at the length limit) has an empty answer, counted invalid."""
    if INDEX[ANS] not in tokens:
        return tokens, ""
    cut = tokens.index(INDEX[ANS])
    rest = tokens[cut + 1:]
    if INDEX[EOS] not in rest:
        return tokens[:cut], ""
    return tokens[:cut], apply_script(source, [VOCAB[t] for t in rest[:rest.index(INDEX[EOS])]])
