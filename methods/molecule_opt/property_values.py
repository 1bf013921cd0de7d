"""A property of a valid molecule by name: RDKit's from its `Profile`, ADMET-AI's (BBBP, AMES) from the model's
shipped checkpoints, predicted in batches (`prefetch`) and cached by canonical SMILES."""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from harness import DataError
from methods.molecule_opt.objectives import ADMET_PROPERTIES, PROPERTIES

if TYPE_CHECKING:
    from methods.molecule_opt.chem import Profile

_ADMET: dict[str, dict[str, float]] = {}  # canonical SMILES -> {our property name: probability}


def property_value(mol: Profile, prop: str) -> float:
    if prop in PROPERTIES:
        return mol.value(prop)
    if mol.smiles not in _ADMET:
        prefetch([mol.smiles], [prop])
    return _ADMET[mol.smiles][prop]


def prefetch(smiles: Iterable[str], props: Iterable[str]) -> None:
    """Predict the ADMET-AI properties of the canonical `smiles` not cached yet, in one batch."""
    if not set(props) & set(ADMET_PROPERTIES):
        return
    todo = sorted(set(smiles) - set(_ADMET))
    if todo:
        table = admet_model().predict(smiles=todo)
        for name in todo:
            _ADMET[name] = {ours: float(table.loc[name, theirs]) for ours, theirs in ADMET_PROPERTIES.items()}


@lru_cache(maxsize=1)
def admet_model() -> Any:
    """ADMET-AI 2's Chemprop ensemble from the checkpoints in its wheel (nothing downloaded), on CPU."""
    try:
        from admet_ai import ADMETModel
    except ImportError:
        raise DataError("the bbbp and ames objectives need ADMET-AI, which is not installed",
                        hint="pip install 'iclr26-harness[molecules]' (admet-ai ships its checkpoints), or use "
                             "the RDKit properties: " + ", ".join(PROPERTIES) + ".") from None
    return ADMETModel(num_workers=0)
