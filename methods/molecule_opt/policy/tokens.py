"""The policy's vocabulary and sequence layout.

A sequence is `<bos> <objective>... <source SMILES> <think> <plan> <ans> <answer SMILES> <eos>`: the prompt runs
to `<think>`, the completion is the plan and the answer. The LLM's free-text reasoning is realised as a plan of
edit tokens [inferred: the spec's "optional reasoning prefix: a sequence of edit tokens"]: the heavy-atom and
ring counts the model intends to add or remove (`+O`, `-C`, `+ring`), learned in pretraining from real
neighbour pairs; its length is the reasoning-length diagnostic (T-DePO-3).
"""
from __future__ import annotations

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
VOCAB = (PAD, BOS, EOS, UNK, THINK, ANS, *OBJECTIVE_TOKENS, *PLAN_TOKENS, *SMILES_TOKENS)
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


def completion(answer: str, plan_tokens: list[str]) -> list[int]:
    return ids([*plan_tokens, ANS, *smiles_tokens(answer), EOS])


def split_completion(tokens: list[int]) -> tuple[list[int], str]:
    """(the plan's token ids before `<ans>`, the answer SMILES after it up to `<eos>`); no `<ans>`: empty answer."""
    if INDEX[ANS] not in tokens:
        return tokens, ""
    cut = tokens.index(INDEX[ANS])
    answer = []
    for token in tokens[cut + 1:]:
        if token in (INDEX[EOS], INDEX[PAD]):
            break
        answer.append(VOCAB[token])
    return tokens[:cut], "".join(answer)
