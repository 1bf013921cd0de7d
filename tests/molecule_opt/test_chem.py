"""The RDKit scoring against the spec's sanity values and the formulas it names."""
from __future__ import annotations

import pytest

pytest.importorskip("rdkit", reason="the `molecules` extra (RDKit) is not installed")

from rdkit import Chem  # noqa: E402
from rdkit.Chem import QED, Crippen  # noqa: E402

from methods.molecule_opt.chem import (  # noqa: E402
    bulk_similarity,
    canonical,
    penalised_logp,
    profile,
    ring_penalty,
    sascorer,
    similarity,
)

ASPIRIN, METHYL_ESTER = "CC(=O)Oc1ccccc1C(=O)O", "CC(=O)Oc1ccccc1C(=O)OC"


def test_aspirin_and_its_methyl_ester_give_the_specs_sanity_values():
    aspirin, ester = profile(ASPIRIN), profile(METHYL_ESTER)
    assert aspirin is not None and ester is not None
    assert aspirin.qed == pytest.approx(0.55, abs=0.005) and aspirin.sa == pytest.approx(1.58, abs=0.005)
    assert similarity(aspirin, ester) == pytest.approx(2 / 3)


def test_properties_equal_rdkits_own_descriptors():
    mol = Chem.MolFromSmiles(METHYL_ESTER)
    found = profile(METHYL_ESTER)
    assert found is not None
    expected = (QED.qed(mol), Crippen.MolLogP(mol), Crippen.MolMR(mol))  # canonical atom order: sums reorder
    assert (found.qed, found.logp, found.mr) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("bad", ["", "   ", "C1CC", "c1ccccc", "not a molecule", "C(C)(C)(C)(C)C"])
def test_invalid_smiles_are_none_never_an_exception(bad):
    assert canonical(bad) is None and profile(bad) is None


def test_similarity_is_symmetric_one_on_itself_and_equal_to_the_bulk_loop():
    a, b, c = (profile(s) for s in (ASPIRIN, METHYL_ESTER, "c1ccccc1O"))
    assert a is not None and b is not None and c is not None
    assert similarity(a, b) == similarity(b, a) and similarity(a, a) == 1.0
    assert bulk_similarity(a.fingerprint, [b.fingerprint, c.fingerprint]) == [similarity(a, b), similarity(a, c)]


def test_penalised_logp_is_logp_minus_sa_minus_the_ring_penalty():
    cyclooctane = Chem.MolFromSmiles("C1CCCCCCC1")
    assert ring_penalty(cyclooctane) == 2 and ring_penalty(Chem.MolFromSmiles("c1ccccc1")) == 0
    expected = Crippen.MolLogP(cyclooctane) - sascorer().calculateScore(cyclooctane) - 2
    assert penalised_logp(cyclooctane) == pytest.approx(expected)
    found = profile("C1CCCCCCC1")
    assert found is not None and found.plogp == pytest.approx(expected)


def test_equal_molecules_written_differently_share_one_canonical_profile():
    assert profile("OC(=O)c1ccccc1OC(C)=O") == profile(ASPIRIN)
