"""Molecular properties and similarity with RDKit: the scoring users apply to their own model outputs.

Every function takes SMILES; a string RDKit cannot parse is invalid (None from `molecule`), never an exception.
`profile` computes every property of one canonical molecule once and caches it, because a run scores the same
source molecules many times and models repeat answers.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from rdkit import Chem, DataStructs, RDConfig, rdBase
from rdkit.Chem import QED, rdFingerprintGenerator, rdMolDescriptors

rdBase.DisableLog("rdApp.*")  # a model's unparsable SMILES are counted invalid, not printed

FINGERPRINT_RADIUS, FINGERPRINT_BITS = 2, 2048  # Morgan r = 2, 2048 bits, as the released reward (spec)


@lru_cache(maxsize=1)
def sascorer() -> ModuleType:
    """RDKit Contrib's synthetic-accessibility scorer (Ertl and Schuffenhauer 2009), shipped in the wheel."""
    spec = importlib.util.spec_from_file_location("sascorer", f"{RDConfig.RDContribDir}/SA_Score/sascorer.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=1)
def _generator() -> Any:
    return rdFingerprintGenerator.GetMorganGenerator(radius=FINGERPRINT_RADIUS, fpSize=FINGERPRINT_BITS)


def molecule(smiles: str) -> Chem.Mol | None:
    """The RDKit molecule of `smiles`, None when it does not parse or sanitise (an empty string included)."""
    if not isinstance(smiles, str) or not smiles.strip():
        return None
    try:
        return Chem.MolFromSmiles(smiles.strip())
    except Exception:  # noqa: BLE001 (RDKit raises assorted errors on pathological input; all mean invalid)
        return None


def canonical(smiles: str) -> str | None:
    """RDKit's canonical SMILES, None when invalid."""
    mol = molecule(smiles)
    return None if mol is None else Chem.MolToSmiles(mol)


def ring_penalty(mol: Chem.Mol) -> int:
    """Atoms beyond six in the largest ring (0 without rings larger than six): the cycle term of penalised logP."""
    largest = max((len(ring) for ring in mol.GetRingInfo().AtomRings()), default=0)
    return max(largest - 6, 0)


def penalised_logp(mol: Chem.Mol) -> float:
    """logP - SA - ring penalty (Jin et al. 2018, unnormalised form); logP is Wildman-Crippen's (Crippen.MolLogP)."""
    logp, _ = rdMolDescriptors.CalcCrippenDescriptors(mol)
    return logp - sascorer().calculateScore(mol) - ring_penalty(mol)


@dataclass(frozen=True)
class Profile:
    """One valid molecule: its canonical SMILES, every property in `PROPERTIES`, and its fingerprint."""

    smiles: str
    qed: float
    logp: float
    mr: float
    tpsa: float
    sa: float
    plogp: float
    fingerprint: Any  # an RDKit ExplicitBitVect

    def value(self, prop: str) -> float:
        return float(getattr(self, prop))


def profile(smiles: str) -> Profile | None:
    """Every property of `smiles`, None when invalid; cached by canonical SMILES."""
    key = canonical(smiles)
    return None if key is None else _profile(key)


@lru_cache(maxsize=200_000)
def _profile(key: str) -> Profile:
    mol = Chem.MolFromSmiles(key)
    logp, molar_refractivity = rdMolDescriptors.CalcCrippenDescriptors(mol)  # Crippen.MolLogP and MolMR at once
    sa = sascorer().calculateScore(mol)
    return Profile(key, QED.qed(mol), logp, molar_refractivity, rdMolDescriptors.CalcTPSA(mol), sa,
                   logp - sa - ring_penalty(mol), _generator().GetFingerprint(mol))


def fingerprint(mol: Chem.Mol) -> Any:
    return _generator().GetFingerprint(mol)


def similarity(a: Profile, b: Profile) -> float:
    """Tanimoto similarity of the two molecules' Morgan fingerprints (symmetric, 1 for the same molecule)."""
    return float(DataStructs.TanimotoSimilarity(a.fingerprint, b.fingerprint))


def bulk_similarity(query: Any, fingerprints: list[Any]) -> list[float]:
    """Tanimoto of one fingerprint against many (RDKit's C++ loop: millions per second)."""
    return list(DataStructs.BulkTanimotoSimilarity(query, fingerprints))
