"""Ideal backbones from internal coordinates: the NeRF construction places each atom from the three before it,
a bond length, a bond angle and a torsion (Parsons et al., J. Comput. Chem. 2005), with Engh-Huber bond
geometry; secondary structure comes from its phi/psi angles (alpha helix -57/-47, beta strand -139/135)."""
from __future__ import annotations

import numpy as np

# bond lengths (angstrom) and angles (degrees) of the peptide backbone
N_CA, CA_C, C_N, C_O = 1.458, 1.525, 1.329, 1.231
ANGLE_N_CA_C, ANGLE_CA_C_N, ANGLE_C_N_CA, ANGLE_CA_C_O = 111.2, 116.2, 121.7, 120.5
HELIX = (-57.0, -47.0)
STRAND = (-139.0, 135.0)


def place(a: np.ndarray, b: np.ndarray, c: np.ndarray, length: float, angle: float, torsion: float) -> np.ndarray:
    """The atom d with |cd| = length, angle bcd = angle and torsion abcd = torsion (degrees)."""
    angle, torsion = np.radians(angle), np.radians(torsion)
    bc = (c - b) / np.linalg.norm(c - b)
    normal = np.cross(b - a, bc)
    normal /= np.linalg.norm(normal)
    frame = np.stack([bc, np.cross(normal, bc), normal], axis=1)
    local = length * np.array([-np.cos(angle), np.sin(angle) * np.cos(torsion), np.sin(angle) * np.sin(torsion)])
    return c + frame @ local


def chain_from_torsions(phi_psi: np.ndarray, omega: float = 180.0) -> np.ndarray:
    """(L, 4, 3) N, CA, C, O of a chain with the given per-residue (phi, psi) in degrees; the O lies in the
    peptide plane, opposite the next N."""
    length = phi_psi.shape[0]
    n = np.array([0.0, 0.0, 0.0])
    ca = np.array([N_CA, 0.0, 0.0])
    angle = np.radians(180.0 - ANGLE_N_CA_C)
    c = ca + CA_C * np.array([np.cos(angle), np.sin(angle), 0.0])
    atoms = np.zeros((length, 4, 3))
    for i in range(length):
        atoms[i, :3] = n, ca, c
        psi = phi_psi[i, 1]
        atoms[i, 3] = place(n, ca, c, C_O, ANGLE_CA_C_O, psi + 180.0)
        if i + 1 < length:
            n_next = place(n, ca, c, C_N, ANGLE_CA_C_N, psi)
            ca_next = place(ca, c, n_next, N_CA, ANGLE_C_N_CA, omega)
            c_next = place(c, n_next, ca_next, CA_C, ANGLE_N_CA_C, phi_psi[i + 1, 0])
            n, ca, c = n_next, ca_next, c_next
    return atoms


def centred_on_axis(atoms: np.ndarray) -> np.ndarray:
    """The chain moved so that its CA trace's centroid is the origin, its principal axis z and its second one
    y (a strand's pleat, so that a strand turned about y stays pleated the same way)."""
    ca = atoms[:, 1]
    centre = ca.mean(axis=0)
    _, _, vt = np.linalg.svd(ca - centre)
    axis = vt[0] if (ca[-1] - ca[0]) @ vt[0] > 0 else -vt[0]
    second = vt[1] - (vt[1] @ axis) * axis
    second /= np.linalg.norm(second)
    rotation = np.stack([np.cross(second, axis), second, axis])
    return (atoms - centre) @ rotation.T
