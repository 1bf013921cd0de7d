"""Random single-atom edits of a molecule with RDKit: append an atom, delete a terminal atom, or change an atom's
element; an edit that fails sanitisation is dropped. The search space of the best-of-N reference."""
from __future__ import annotations

import numpy as np
from rdkit import Chem

ELEMENTS = ("C", "N", "O", "F", "Cl", "S")


def mutate(smiles: str, rng: np.random.Generator) -> str | None:
    """One random edit of `smiles`, None when the edit gives no valid molecule. The SMILES keeps the input's atom
    order (not canonical), so an edit changes the string locally: the policy's pretraining learns edits from it."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumAtoms() < 2:
        return None
    edit = Chem.RWMol(mol)
    atom = edit.GetAtomWithIdx(int(rng.integers(edit.GetNumAtoms())))
    kind = rng.integers(3)
    if kind == 0:
        if atom.GetTotalNumHs() == 0:
            return None
        new = edit.AddAtom(Chem.Atom(str(rng.choice(ELEMENTS))))
        edit.AddBond(atom.GetIdx(), new, Chem.BondType.SINGLE)
    elif kind == 1:
        if atom.GetDegree() != 1:
            return None
        edit.RemoveAtom(atom.GetIdx())
    else:
        atom.SetAtomicNum(Chem.Atom(str(rng.choice(ELEMENTS[:3]))).GetAtomicNum())
        atom.SetNoImplicit(False)
        atom.SetNumExplicitHs(0)
    try:
        Chem.SanitizeMol(edit)
    except Exception:  # noqa: BLE001 (RDKit raises several sanitisation errors; every one means "not a molecule")
        return None
    out = Chem.MolToSmiles(edit, canonical=False)
    return out if Chem.MolFromSmiles(out) is not None else None
