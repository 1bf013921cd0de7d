"""An independent designability judge on CPU (issue 60): thread a sequence onto the target backbone and score it
with the Miyazawa-Jernigan 1996 statistical contact potential, as a z-score against shuffles of the same sequence.

**The numbers.** e_ij of Table 3 of Miyazawa & Jernigan (1996), "Residue-residue potentials with a favorable contact
pair term and an unfavorable high packing density term, for simulation and threading", J. Mol. Biol. 256:623-644
(RT units, all attractive, Leu-Leu -7.37 the strongest, Lys-Lys -0.12 the weakest), transcribed from AAindex3 entry
MIYS960101 (Kawashima et al.) and checked value by value, all 210 pairs equal, against a second, independent
transcription of Table 3 (the evoli project's `MJ96TableIII`, whose Asn/Gln/Asp/Glu labels are in another order).

**The score.** Contacts are read from the backbone alone: virtual C-beta atoms placed from N, CA, C with
ProteinMPNN's ideal-geometry constants (Dauparas et al. 2022), a contact being two C-betas closer than 8 A, at
least 3 residues apart along a chain (any two residues of different chains). The energy of a sequence is the sum
of e_ij over the contacts; its z-score is (E - mean) / sd over `shuffles` random permutations of the same
sequence on the same positions, one fixed set of permutations per (backbone length, seed), so a sequence's z does
not depend on what else is scored with it. Lower is better: z = -2 means the sequence sits two standard deviations
better on this backbone than its own residues placed at random.

**Fold specificity** (`fold_specificity_z`): gapless threading, the use Miyazawa & Jernigan made of the table.
The same sequence is threaded on every window of the same length of other structures (decoys: the packaged real
chains with 7OK9's 522-residue chain, `backbone_pool.packaged_chains(max_length=600)`), and its mean energy per
contact on the target is z-scored against its mean energies on the windows: per contact, because a window cut out
of a longer chain loses the contacts to the rest of it, which would make any sequence prefer the compact target.
Composition is fixed by construction (one sequence, many structures), so this asks whether the sequence prefers
this backbone to other folds.

**What it can tell.** Whether a design puts its residues where this backbone's contact pattern wants them:
hydrophobic residues at contact-rich (buried) positions and favourable pairs in contact, with composition held
fixed, by a potential fitted in 1996 to PDB statistics, so it shares no parameters, training data split or model
family with ProteinMPNN (it agrees with ProteinMPNN only as far as both capture the same burial physics).

**What it cannot tell.**
- That the sequence folds into this backbone: `threading_z`'s decoys are sequences, and `fold_specificity_z`'s
  are a few hundred windows of 8 real chains (mostly helical), nowhere near the space of folds; a good z is
  evidence, not proof. A generated helical target has near-copies among the helical windows, so its
  specificity z is near 0 whatever the sequence.
- Anything local or atomic: helix vs strand propensity, turns and loops, Gly/Pro in special conformations,
  side-chain packing, clashes, hydrogen bonds, absolute stability. It is no scTM and no substitute for refolding.
- Pair specificity beyond hydrophobicity: the MJ matrix is nearly rank one (Li, Tang & Wingreen, PRL 79:765, 1997),
  so the score is mostly hydrophobic burial.
- Composition: both z-scores say where the hydrophobics go, not how many there are: a polar-biased design that
  puts its few hydrophobics at the most buried positions can get a *better* z than a more hydrophobic one
  (measured: see the family README), though its core is smaller. Report them beside `threading_energy` (energy
  per residue, which a more polar sequence raises, whatever its placement). A sequence of one residue type (or a
  backbone without contacts) has no shuffle spread and gets NaN.
- The MJ numbers were fitted with their own contact definition (side-chain centres within 6.5 A); C-beta < 8 A is
  the usual threading stand-in, an approximation. On isolated helices and hairpins nearly every contact is local
  (i, i+3 / i+4), so z says little there; a chain cut out of an assembly looks exposed at its interfaces.

Scored for every design, a method's or yours (`scored.py`): the metrics `shuffle_z`, `sp_z` (against the packaged
chains, `packaged_specificity_z`, their windows cached per length) and `contact_energy`."""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from methods.protein_design.backbone import ALPHABET, Backbone, encode

CONTACT_CUTOFF = 8.0  # angstrom between virtual C-betas
MIN_SEPARATION = 3    # residues along a chain
MIN_WINDOW_CONTACTS = 10  # a decoy window with fewer contacts (an extended stretch) gives no usable mean

# Table 3 of Miyazawa & Jernigan (1996), e_ij in RT units: upper triangle, rows and columns in the paper's order.
MJ1996_ORDER = "CMFILVWYAGTSNQDEHRKP"
MJ1996_UPPER = {
    "C": "-5.44 -4.99 -5.80 -5.50 -5.83 -4.96 -4.95 -4.16 -3.57 -3.16 -3.11 -2.86 -2.59 -2.85 -2.41 -2.27 -3.60 -2.57 "
         "-1.95 -3.07",
    "M": "-5.46 -6.56 -6.02 -6.41 -5.32 -5.55 -4.91 -3.94 -3.39 -3.51 -3.03 -2.95 -3.30 -2.57 -2.89 -3.98 -3.12 -2.48 "
         "-3.45",
    "F": "-7.26 -6.84 -7.28 -6.29 -6.16 -5.66 -4.81 -4.13 -4.28 -4.02 -3.75 -4.10 -3.48 -3.56 -4.77 -3.98 -3.36 -4.25",
    "I": "-6.54 -7.04 -6.05 -5.78 -5.25 -4.58 -3.78 -4.03 -3.52 -3.24 -3.67 -3.17 -3.27 -4.14 -3.63 -3.01 -3.76",
    "L": "-7.37 -6.48 -6.14 -5.67 -4.91 -4.16 -4.34 -3.92 -3.74 -4.04 -3.40 -3.59 -4.54 -4.03 -3.37 -4.20",
    "V": "-5.52 -5.18 -4.62 -4.04 -3.38 -3.46 -3.05 -2.83 -3.07 -2.48 -2.67 -3.58 -3.07 -2.49 -3.32",
    "W": "-5.06 -4.66 -3.82 -3.42 -3.22 -2.99 -3.07 -3.11 -2.84 -2.99 -3.98 -3.41 -2.69 -3.73",
    "Y": "-4.17 -3.36 -3.01 -3.01 -2.78 -2.76 -2.97 -2.76 -2.79 -3.52 -3.16 -2.60 -3.19",
    "A": "-2.72 -2.31 -2.32 -2.01 -1.84 -1.89 -1.70 -1.51 -2.41 -1.83 -1.31 -2.03",
    "G": "-2.24 -2.08 -1.82 -1.74 -1.66 -1.59 -1.22 -2.15 -1.72 -1.15 -1.87",
    "T": "-2.12 -1.96 -1.88 -1.90 -1.80 -1.74 -2.42 -1.90 -1.31 -1.90",
    "S": "-1.67 -1.58 -1.49 -1.63 -1.48 -2.11 -1.62 -1.05 -1.57",
    "N": "-1.68 -1.71 -1.68 -1.51 -2.08 -1.64 -1.21 -1.53",
    "Q": "-1.54 -1.46 -1.42 -1.98 -1.80 -1.29 -1.73",
    "D": "-1.21 -1.02 -2.32 -2.29 -1.68 -1.33",
    "E": "-0.91 -2.15 -2.27 -1.80 -1.26",
    "H": "-3.05 -2.16 -1.35 -2.25",
    "R": "-1.55 -0.59 -1.70",
    "K": "-0.12 -0.97",
    "P": "-1.75",
}


@lru_cache(maxsize=1)
def mj1996() -> np.ndarray:
    """(21, 21) symmetric contact energies in ProteinMPNN's alphabet order (read-only); X (unknown) counts 0."""
    table = np.zeros((len(ALPHABET), len(ALPHABET)))
    for i, a in enumerate(MJ1996_ORDER):
        for offset, value in enumerate(MJ1996_UPPER[a].split()):
            b = MJ1996_ORDER[i + offset]
            table[ALPHABET.index(a), ALPHABET.index(b)] = table[ALPHABET.index(b), ALPHABET.index(a)] = float(value)
    table.setflags(write=False)
    return table


def virtual_beta_carbons(coords: np.ndarray) -> np.ndarray:
    """(L, 3) ideal C-beta positions from (L, 4, 3) N, CA, C, O, with ProteinMPNN's constants (also for Gly,
    so the contact map is the backbone's, whatever the sequence)."""
    n, ca, c = coords[:, 0], coords[:, 1], coords[:, 2]
    b, c_ = ca - n, c - ca
    return -0.58273431 * np.cross(b, c_) + 0.56802827 * b - 0.54067466 * c_ + ca


def contact_pairs(backbone: Backbone, cutoff: float = CONTACT_CUTOFF, min_separation: int = MIN_SEPARATION
                  ) -> np.ndarray:
    """(P, 2) residue index pairs i < j in contact: C-betas within `cutoff`, `min_separation` apart along a chain
    (by residue number, so a skipped loop counts) or on different chains."""
    beta = virtual_beta_carbons(backbone.coords)
    distance = np.linalg.norm(beta[:, None] - beta[None], axis=-1)
    same_chain = backbone.chain[:, None] == backbone.chain[None]
    apart = np.abs(backbone.numbering[:, None] - backbone.numbering[None]) >= min_separation
    close = (distance < cutoff) & (apart | ~same_chain)
    i, j = np.nonzero(np.triu(close, k=1))
    return np.column_stack([i, j])


def contact_energy(tokens: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(n,) sum of MJ e_ij over the contacts of each of the (n, L) token sequences (RT units; lower is better)."""
    table = mj1996()
    return table[tokens[:, pairs[:, 0]], tokens[:, pairs[:, 1]]].sum(axis=1)


def threading_z(backbone: Backbone, sequences: Sequence[str], shuffles: int = 1000, seed: int = 0) -> np.ndarray:
    """(n,) z-score of each sequence's contact energy on the backbone against `shuffles` permutations of that
    sequence (the same permutations for every sequence of this length and seed); lower is better, NaN where the
    shuffles have no spread."""
    all_tokens = _tokens(backbone, sequences)
    if not sequences:
        return np.zeros(0)
    pairs = contact_pairs(backbone)
    permutations = np.argsort(np.random.default_rng([seed, backbone.length]).random((shuffles, backbone.length)),
                              axis=1)
    z = []
    for tokens in all_tokens:
        own = contact_energy(tokens[None], pairs)[0]
        shuffled = contact_energy(tokens[permutations], pairs)
        spread = shuffled.std()
        z.append((own - shuffled.mean()) / spread if spread > 1e-9 else float("nan"))
    return np.array(z, dtype=np.float64)


def threading_energy(backbone: Backbone, sequences: Sequence[str]) -> np.ndarray:
    """(n,) contact energy per residue of each sequence on the backbone (RT units; lower: more and stronger
    contacts, which more hydrophobic residues give whatever their placement)."""
    return contact_energy(_tokens(backbone, sequences), contact_pairs(backbone)) / backbone.length


def decoy_windows(decoys: Sequence[Backbone], length: int) -> list[np.ndarray]:
    """The contact pairs of every `length`-residue window of each decoy (indices from the window's start), for
    windows with at least MIN_WINDOW_CONTACTS contacts."""
    return [w for decoy in decoys for w in _windows(contact_pairs(decoy), decoy.length, length)]


def _windows(pairs: np.ndarray, decoy_length: int, length: int) -> list[np.ndarray]:
    windows = []
    for start in range(decoy_length - length + 1):
        inside = (pairs[:, 0] >= start) & (pairs[:, 1] < start + length)
        if inside.sum() >= MIN_WINDOW_CONTACTS:
            windows.append(pairs[inside] - start)
    return windows


def fold_specificity_z(backbone: Backbone, sequences: Sequence[str], decoys: Sequence[Backbone]) -> np.ndarray:
    """(n,) z-score of each sequence's mean contact energy per contact on the backbone against the same on every
    window of the decoys (a decoy named like the backbone is skipped); lower: the sequence prefers this backbone.
    NaN where fewer than 2 decoy windows fit."""
    return specificity_z(backbone, sequences,
                         decoy_windows([d for d in decoys if d.name != backbone.name], backbone.length))


@lru_cache(maxsize=1)
def _packaged_decoys() -> tuple[tuple[str, np.ndarray, int], ...]:
    """(name, contact pairs, length) of each packaged real chain up to 600 residues, read once (about 3 s)."""
    from methods.protein_design.backbone_pool import packaged_chains

    return tuple((d.name, contact_pairs(d), d.length) for d in packaged_chains(max_length=600))


@lru_cache(maxsize=256)
def _packaged_windows(length: int) -> tuple[tuple[str, tuple[np.ndarray, ...]], ...]:
    """Each packaged chain's `length`-residue windows, cached per length: every design of a backbone and every
    backbone of that length reuse them."""
    return tuple((name, tuple(_windows(pairs, size, length))) for name, pairs, size in _packaged_decoys())


def packaged_specificity_z(backbone: Backbone, sequences: Sequence[str]) -> np.ndarray:
    """`fold_specificity_z` against the packaged real chains (`backbone_pool.packaged_chains(max_length=600)`),
    the target itself left out by name (a copy of a packaged chain under another name is not)."""
    windows = [w for name, chain in _packaged_windows(backbone.length) if name != backbone.name for w in chain]
    return specificity_z(backbone, sequences, windows)


def specificity_z(backbone: Backbone, sequences: Sequence[str], windows: Sequence[np.ndarray]) -> np.ndarray:
    """`fold_specificity_z` from the decoys' windows (contact pairs within each window)."""
    tokens = _tokens(backbone, sequences)
    target = contact_pairs(backbone)
    if len(windows) < 2 or not len(target) or not sequences:
        return np.full(len(sequences), np.nan)
    own = contact_energy(tokens, target) / len(target)
    table = mj1996()
    others = np.stack([table[tokens[:, w[:, 0]], tokens[:, w[:, 1]]].mean(axis=1) for w in windows], axis=1)
    return (own - others.mean(axis=1)) / others.std(axis=1)


def _tokens(backbone: Backbone, sequences: Sequence[str]) -> np.ndarray:
    """(n, L) token ids, one sequence per position of the backbone."""
    for sequence in sequences:
        if len(sequence) != backbone.length:
            raise ValueError(f"backbone {backbone.name}: a sequence of {len(sequence)} residues for "
                             f"{backbone.length} positions")
    return np.stack([encode(s) for s in sequences]) if sequences else np.zeros((0, backbone.length), np.int64)
