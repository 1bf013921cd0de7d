"""Reference answers: for a source molecule, the MOSES-train molecule most similar to it (Morgan Tanimoto) that
improves every objective with similarity >= delta. The pool's fingerprints are computed once per process and
searched in bulk; properties are computed only for the few candidates above delta, most similar first."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from methods.molecule_opt.moses import moses_smiles
from methods.molecule_opt.objectives import Objectives
from methods.molecule_opt.property_values import property_value

if TYPE_CHECKING:
    from methods.molecule_opt.chem import Profile

CANDIDATES = 64  # the most similar pool molecules examined per source


@dataclass(frozen=True)
class Pool:
    """The first `size` MOSES-train molecules with their fingerprints."""

    smiles: tuple[str, ...]
    fingerprints: tuple[Any, ...]


@lru_cache(maxsize=2)
def reference_pool(size: int) -> Pool:
    from methods.molecule_opt.chem import fingerprint, molecule  # RDKit on use: validating needs no extra

    kept = [(s, m) for s in moses_smiles("train", size) if (m := molecule(s)) is not None]
    return Pool(tuple(s for s, _ in kept), tuple(fingerprint(m) for _, m in kept))


def nearest_reference(source: Profile, objectives: Objectives, delta: float, pool: Pool) -> str | None:
    """The canonical SMILES of the most similar pool molecule (other than the source) improving every objective
    with similarity >= `delta`, None when the `CANDIDATES` most similar hold none."""
    from methods.molecule_opt.chem import bulk_similarity, profile  # RDKit on use: validating needs no extra

    sims = bulk_similarity(source.fingerprint, list(pool.fingerprints))
    order = sorted((i for i, s in enumerate(sims) if delta <= s < 1.0), key=lambda i: -sims[i])[:CANDIDATES]
    for i in order:
        candidate = profile(pool.smiles[i])
        if candidate is not None and all(o.gain(property_value(source, o.prop), property_value(candidate, o.prop)) > 0
                                         for o in objectives):
            return candidate.smiles
    return None
