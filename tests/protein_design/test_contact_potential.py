"""The independent designability judge: the Miyazawa-Jernigan 1996 table as published, virtual C-betas where the
real ones are, hand-checked energies on 4-residue toys, natives of the real chains far better than their shuffles
or random sequences, and a z-score that depends only on (backbone, sequence, seed)."""
from __future__ import annotations

import numpy as np
import pytest

from methods.protein_design.backbone import ALPHABET, AMINO_ACIDS, Backbone
from methods.protein_design.contact_potential import (contact_energy, contact_pairs, fold_specificity_z, mj1996,
                                                      threading_energy, threading_z, virtual_beta_carbons)
from methods.protein_design.generators import helix


def _e(a: str, b: str) -> float:
    return float(mj1996()[ALPHABET.index(a), ALPHABET.index(b)])


def test_the_table_is_mj1996_table_3():
    table = mj1996()
    assert np.array_equal(table, table.T) and (table[:20, :20] < 0).all() and (table[20] == 0).all()
    assert len({float(v) for v in table[np.triu_indices(20)]}) > 150  # 210 entries, few repeated values
    assert table[:20, :20].min() == _e("L", "L") == -7.37 and table[:20, :20].max() == _e("K", "K") == -0.12
    # the entries where transcriptions swap Asn/Gln and Asp/Glu labels, as AAindex MIYS960101 gives them
    assert (_e("N", "N"), _e("Q", "Q"), _e("D", "D"), _e("E", "E")) == (-1.68, -1.54, -1.21, -0.91)
    assert (_e("K", "E"), _e("K", "D"), _e("R", "D"), _e("C", "C")) == (-1.80, -1.68, -2.29, -5.44)


def _toy(offsets: list[tuple[float, float, float]], chain: list[int]) -> Backbone:
    """Copies of one residue frame translated by `offsets`, so C-beta distances are the offsets' distances."""
    frame = helix(1).coords[0]
    coords = np.stack([frame + np.array(o) for o in offsets])
    return Backbone("toy", coords, np.array(chain), None, np.arange(len(offsets)))


def test_energy_of_a_one_chain_toy_counts_only_residues_three_apart():
    # residues 0-1-2 on a line 3.8 A apart, residue 3 5 A from residue 0: (0, 2) is close but only 2 apart
    toy = _toy([(0, 0, 0), (3.8, 0, 0), (7.6, 0, 0), (0, 5, 0)], [0, 0, 0, 0])
    pairs = contact_pairs(toy)
    assert pairs.tolist() == [[0, 3]]
    tokens = np.array([[ALPHABET.index(a) for a in s] for s in ("LAAL", "KAAE", "LAAX")])
    np.testing.assert_allclose(contact_energy(tokens, pairs), [-7.37, -1.80, 0.0])
    np.testing.assert_allclose(threading_energy(toy, ["LAAL", "KAAE"]), [-7.37 / 4, -1.80 / 4])


def test_energy_of_a_two_chain_toy_counts_close_pairs_across_chains():
    toy = _toy([(0, 0, 0), (20, 0, 0), (0, 6, 0), (20, 6, 0)], [0, 0, 1, 1])
    pairs = contact_pairs(toy)
    assert pairs.tolist() == [[0, 2], [1, 3]]  # (0, 3) and (1, 2) are 20.9 A apart
    tokens = np.array([[ALPHABET.index(a) for a in "LKFE"]])
    assert contact_energy(tokens, pairs)[0] == pytest.approx(-7.28 - 1.80)


@pytest.fixture(scope="module")
def real_chains() -> list[Backbone]:
    pytest.importorskip("tmtools")
    pytest.importorskip("biotite")
    from methods.protein_design.backbone_pool import packaged_chains

    return packaged_chains()


def test_virtual_beta_carbons_sit_where_the_real_ones_are(real_chains):  # noqa: ANN001
    import biotite.structure as struc
    import biotite.structure.io as strucio

    from methods.protein_design.backbone_pool import packaged_structures

    atoms = strucio.load_structure(str(packaged_structures() / "2gtl.cif"), model=1)
    atoms = atoms[(atoms.chain_id == "A") & struc.filter_amino_acids(atoms) & ~atoms.hetero]
    real = {int(r): c for r, n, c in zip(atoms.res_id, atoms.atom_name, atoms.coord, strict=True) if n == "CB"}
    chain = real_chains[0]
    virtual = virtual_beta_carbons(chain.coords)
    deviation = [np.linalg.norm(virtual[i] - real[int(r)]) for i, r in enumerate(chain.numbering) if int(r) in real]
    assert len(deviation) > 120 and np.median(deviation) < 0.1 and max(deviation) < 0.3  # measured 0.06, 0.20


def test_natives_of_the_real_chains_score_far_better_than_shuffled_or_random_sequences(real_chains):  # noqa: ANN001
    rng = np.random.default_rng(0)
    native, shuffled, random = [], [], []
    for chain in real_chains:
        assert chain.native is not None
        native.append(threading_z(chain, [chain.native], shuffles=500)[0])
        shuffled += list(threading_z(chain, ["".join(rng.permutation(list(chain.native))) for _ in range(10)],
                                     shuffles=500))
        random += list(threading_z(chain, ["".join(rng.choice(list(AMINO_ACIDS), chain.length)) for _ in range(10)],
                                   shuffles=500))
    assert max(native) < -3  # measured: -4.2 (linker M) to -6.3 (globin A), 1,000 shuffles
    assert np.mean(native) < np.mean(shuffled) - 4 and np.mean(native) < np.mean(random) - 4
    assert abs(np.mean(shuffled)) < 0.5 and abs(np.mean(random)) < 0.5  # the decoys sit at z ~ 0


def test_natives_of_the_real_chains_prefer_their_own_structure_to_decoy_windows(real_chains):  # noqa: ANN001
    from methods.protein_design.backbone_pool import packaged_chains

    decoys = packaged_chains(max_length=600)  # the 7 chains and 7OK9's 522-residue chain
    assert len(decoys) == 8
    rng = np.random.default_rng(1)
    native, decoy_sequences = [], []
    for chain in real_chains:
        assert chain.native is not None
        shuffled = ["".join(rng.permutation(list(chain.native))) for _ in range(3)]
        random = ["".join(rng.choice(list(AMINO_ACIDS), chain.length)) for _ in range(3)]
        z = fold_specificity_z(chain, [chain.native, *shuffled, *random], decoys)
        native.append(z[0])
        decoy_sequences += list(z[1:])
    assert max(native) < -3  # measured: -4.0 to -4.8 against 300-640 windows
    assert abs(np.mean(decoy_sequences)) < 0.75 and np.mean(native) < np.mean(decoy_sequences) - 3


def test_without_decoy_windows_of_its_length_the_specificity_is_nan():
    backbone = helix(40)
    assert np.isnan(fold_specificity_z(backbone, [backbone.native or ""], [helix(30, 1)])).all()


def test_z_depends_only_on_backbone_sequence_and_seed():
    backbone = helix(40, 1)
    assert backbone.native is not None
    other = "".join(reversed(backbone.native))
    alone = threading_z(backbone, [backbone.native], seed=3)
    batch = threading_z(backbone, [other, backbone.native], seed=3)
    assert alone[0] == batch[1] and np.array_equal(alone, threading_z(backbone, [backbone.native], seed=3))
    moved = threading_z(backbone, [backbone.native], seed=4)[0]
    assert moved != alone[0] and abs(moved - alone[0]) < 0.5


def test_a_sequence_without_spread_gets_nan_and_a_wrong_length_is_refused():
    backbone = helix(20)
    assert np.isnan(threading_z(backbone, ["L" * 20])[0])
    with pytest.raises(ValueError, match="19 residues for 20 positions"):
        threading_z(backbone, ["L" * 19])
