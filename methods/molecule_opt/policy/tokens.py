"""The policy's vocabulary and sequence layout.

A sequence is `<bos> <objective>... <source SELFIES> <think> <plan> <ans> <answer script> <eos>`: the prompt runs
to `<think>`, the completion is the plan and the answer. The LLM's free-text reasoning is realised as a plan of
edit tokens [inferred: the spec's "optional reasoning prefix: a sequence of edit tokens"]: the heavy-atom and
ring counts the model intends to add or remove (`+O`, `-C`, `+ring`); its length is the reasoning-length
diagnostic (T-DePO-3).

Molecules are written in SELFIES (Krenn et al. 2020; the spec's "SMILES or SELFIES"), and the answer as an edit
script over the source's SELFIES tokens: `<copy>` emits the next source token, `<skip>` drops it, any SELFIES
token is inserted, and `<eos>` copies the rest. Every answer has a script (difflib's alignment of the two token
lists), so the reference answers are scripts too. Any SELFIES string decodes to a molecule, so validity is no
longer what a small model fails at (a first version wrote SMILES token by token: 20 % valid at similarity 0.15;
a SMILES edit script: 13 % valid after SFT); an answer is invalid only when it is empty, unfinished (no `<eos>`)
or holds a token that is not an edit or a SELFIES token. What the
policy must learn is which edits improve the property while keeping the molecule similar [inferred: our device,
not the paper's, whose LLM writes free-text SMILES].
"""
from __future__ import annotations

import difflib
from collections import Counter

import selfies
from rdkit import Chem

from methods.molecule_opt.objectives import KNOWN, Objectives

# Every SELFIES token of the first 40,000 MOSES-train molecules (26), most frequent first, and [nop]-free.
SELFIES_TOKENS = ("[C]", "[=C]", "[Ring1]", "[=Branch1]", "[Branch1]", "[N]", "[=O]", "[O]", "[=N]", "[S]",
                  "[Branch2]", "[Ring2]", "[#Branch1]", "[=Branch2]", "[F]", "[#Branch2]", "[Cl]", "[#C]", "[P]",
                  "[=Ring1]", "[NH1]", "[Br]", "[#N]", "[=Ring2]", "[=S]", "[H]")
MOLECULE_TOKENS = frozenset(SELFIES_TOKENS)
PLAN_ELEMENTS = ("C", "N", "O", "S", "F", "Cl", "Br", "ring")
PLAN_TOKENS = tuple(f"{sign}{e}" for e in PLAN_ELEMENTS for sign in "+-")
OBJECTIVE_TOKENS = tuple(f"<{p}{sign}>" for p in KNOWN for sign in "+-")
PAD, BOS, EOS, UNK, THINK, ANS = "<pad>", "<bos>", "<eos>", "<unk>", "<think>", "<ans>"
COPY, SKIP = "<copy>", "<skip>"
VOCAB = (PAD, BOS, EOS, UNK, THINK, ANS, COPY, SKIP, *OBJECTIVE_TOKENS, *PLAN_TOKENS, *SELFIES_TOKENS)
INDEX = {token: i for i, token in enumerate(VOCAB)}
PLAN_LIMIT = 6  # plan tokens written at most (a longer plan is cut)


def ids(tokens: list[str]) -> list[int]:
    return [INDEX.get(token, INDEX[UNK]) for token in tokens]


def molecule_tokens(smiles: str) -> list[str]:
    """The SELFIES tokens of `smiles` in its own atom order; none when SELFIES cannot encode it."""
    try:
        return list(selfies.split_selfies(selfies.encoder(smiles)))
    except selfies.EncoderError:
        return []


def decoded(tokens: list[str]) -> str:
    """The SMILES of SELFIES tokens ("" for none: an invalid answer)."""
    return selfies.decoder("".join(tokens)) if tokens else ""


def prompt(objectives: Objectives, source: str) -> list[int]:
    return ids([BOS, *(f"<{o}>" for o in objectives), *molecule_tokens(source), THINK])


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
    """The edit script turning `source`'s SELFIES tokens into `answer`'s, trailing copies left to `<eos>`."""
    before, after = molecule_tokens(source), molecule_tokens(answer)
    steps: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        steps += [COPY] * (i2 - i1) if op == "equal" else [SKIP] * (i2 - i1) + after[j1:j2]
    while steps and steps[-1] == COPY:
        steps.pop()
    return steps


def apply_script(source: str, steps: list[str]) -> str:
    """The SMILES an edit script writes from `source` (past the source's end, `<copy>` and `<skip>` do nothing);
    "" (invalid) when the script holds a token that is neither an edit nor a SELFIES token (a plan token, `<pad>`)."""
    before, out, at = molecule_tokens(source), [], 0
    for step in steps:
        if step in (COPY, SKIP):
            out += before[at:at + 1] if step == COPY else []
            at += 1
        elif step in MOLECULE_TOKENS:
            out.append(step)
        else:
            return ""
    return decoded(out + before[at:])


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
