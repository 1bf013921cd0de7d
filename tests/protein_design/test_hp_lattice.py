"""The HP lattice is exact: walk counts are the square lattice's known self-avoiding-walk numbers, designability
equals a brute force over sequences and walks, and the alignment loop raises the fold probability it optimises;
a designs table that leaves a target out, or holds other letters, is refused."""
from __future__ import annotations

import numpy as np
import pytest

from harness import DataError
from methods.protein_design.hp_lattice import all_sequences, designability, lattice, walks
from methods.protein_design.hp_methods import HPAlignment, HPExhaustive, HPReference
from methods.protein_design.hp_task import HPLatticeDesign, load_hp_targets, scored_hp
from tests.method_runs import context

# c_k, the number of k-step self-avoiding walks on the square lattice (OEIS A001411)
SAW_COUNTS = {2: 12, 3: 36, 4: 100, 5: 284, 6: 780, 7: 2172, 8: 5916, 9: 16268}


@pytest.mark.parametrize("steps", sorted(SAW_COUNTS))
def test_walks_are_every_self_avoiding_walk_up_to_symmetry(steps):
    found = walks(steps + 1)
    # one walk per class of 8 images, except the straight line, whose reflection is itself (4 images)
    assert len(found) == (SAW_COUNTS[steps] // 4 - 1) // 2 + 1
    assert all(len({tuple(p) for p in walk}) == steps + 1 for walk in found)
    assert (np.abs(np.diff(found, axis=1)).sum(axis=2) == 1).all()


def _brute_designability(n: int) -> dict[tuple, int]:
    """Per walk (as a tuple of coordinates), the sequences whose unique lowest-energy walk it is."""
    coords = walks(n)
    counts: dict[tuple, int] = {}
    for sequence in all_sequences(n):
        energies = []
        for walk in coords:
            contacts = sum(1 for i in range(n) for j in range(i + 2, n)
                           if sequence[i] and sequence[j] and abs(walk[i] - walk[j]).sum() == 1)
            energies.append(-contacts)
        order = np.argsort(energies, kind="stable")
        if energies[order[0]] < energies[order[1]]:
            key = tuple(map(tuple, coords[order[0]]))
            counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("n", [6, 7])
def test_designability_equals_a_brute_force(n):
    grid, exact = lattice(n), designability(n)
    brute = _brute_designability(n)
    ours = {tuple(map(tuple, grid.coords[grid.walk_of_map[u]])): int(c) for u, c in enumerate(exact) if c}
    assert ours == brute and sum(brute.values()) > 0


def test_fold_probabilities_of_every_walk_sum_to_one():
    grid = lattice(8)
    sequences = all_sequences(8)[::17]
    total = sum(grid.fold_probability(sequences, u, 0.7) * grid.multiplicity[u] for u in range(len(grid.maps)))
    np.testing.assert_allclose(total, 1.0)


def test_alignment_moves_the_fold_probability_towards_the_exact_optimum():
    data = load_hp_targets(n=10, targets=2, designs=32)
    task = HPLatticeDesign()
    instance = task.instance(data, {}, 0)

    def fold(method) -> float:  # noqa: ANN001
        table = task.predictions(instance, method.run(instance.inputs, context(0)))
        return float(np.log(scored_hp(data, table).fold_probability).mean())

    reference, aligned, best = fold(HPReference()), fold(HPAlignment(rounds=30)), fold(HPExhaustive())
    assert reference + 3 < aligned < best  # log fold probability: about -8.3, -2.7 and -1.4


def test_a_designs_table_needs_every_target_and_h_p_sequences_of_its_length():
    task = HPLatticeDesign()
    instance = task.tiny_instance(0)
    table = task.checked(instance, task.predictions(instance, HPReference().run(instance.inputs, context(0))))
    first, second = instance.truth.targets
    with pytest.raises(DataError, match=f"1 test sample\\(s\\) have no row, e.g. {second}"):
        task.checked(instance, table[table["target"] == first])
    with pytest.raises(DataError, match="a second row for target"):
        task.checked(instance, table.iloc[[0, 0]])
    table.loc[0, "sequence"] = "HPX" + table.loc[0, "sequence"][3:]
    with pytest.raises(DataError, match=f"target {first}: designs must be 8 letters of H and P"):
        task.score(instance, task.checked(instance, table), {})
