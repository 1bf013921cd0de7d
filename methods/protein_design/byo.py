"""Bring your own designs and structure predictions: a CSV of sequences per backbone (from any designer), with
optionally the structure your predictor (ESMFold, AlphaFold2, ...) gave each, scored by self-consistency
against the designed backbone: TM-score (normalised by the backbone's length) and CA RMSD after TM-align's
superposition, both from `tmtools`. Columns: `backbone` (the backbone's name, its file's stem), `sequence`, and
optionally `predicted_structure` (a PDB/mmCIF path relative to the CSV's folder). The designs go through the
same oracles as every method's, so they land in the same tables. Every mistake is a `DataError` naming the file
and line."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness import DataError
from methods.protein_design.backbone import Backbone
from methods.protein_design.structure_files import read_backbone


@dataclass(frozen=True)
class RecordedDesign:
    backbone: str
    sequence: str
    predicted: Path | None


def read_designs(path: Path) -> list[RecordedDesign]:
    if not path.is_file():
        raise DataError(f"no such designs file: {path}", file=path)
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        for needed in ("backbone", "sequence"):
            if needed not in columns:
                raise DataError(f"the header lacks column {needed!r} (found: {', '.join(columns)})", file=path,
                                line=1, field=needed)
        designs = []
        for line, row in enumerate(reader, start=2):
            predicted = (row.get("predicted_structure") or "").strip()
            if not (row.get("sequence") or "").strip():
                raise DataError("empty sequence", file=path, line=line, field="sequence")
            designs.append(RecordedDesign((row.get("backbone") or "").strip(), row["sequence"].strip().upper(),
                                          path.parent / predicted if predicted else None))
    return designs


def by_backbone(designs: list[RecordedDesign], backbones: tuple[Backbone, ...], path: Path
                ) -> dict[str, tuple[RecordedDesign, ...]]:
    """The designs grouped by backbone; a name that matches no backbone, or a wrong length, is an error."""
    lengths = {b.name: b.length for b in backbones}
    grouped: dict[str, list[RecordedDesign]] = {}
    for line, design in enumerate(designs, start=2):
        if design.backbone not in lengths:
            raise DataError(f"backbone {design.backbone!r} is not in the folder (backbones: "
                            f"{', '.join(sorted(lengths))})", file=path, line=line, field="backbone")
        if len(design.sequence) != lengths[design.backbone]:
            raise DataError(f"the sequence has {len(design.sequence)} residues, backbone {design.backbone} has "
                            f"{lengths[design.backbone]}", file=path, line=line, field="sequence")
        grouped.setdefault(design.backbone, []).append(design)
    return {name: tuple(group) for name, group in grouped.items()}


def self_consistency(backbone: Backbone, predicted: Path) -> tuple[float, float]:
    """(scTM normalised by the designed backbone, CA RMSD in angstrom) of a predicted structure."""
    from tmtools import tm_align

    model = read_backbone(predicted)
    if model.length != backbone.length:
        raise DataError(f"the prediction has {model.length} residues, backbone {backbone.name} {backbone.length}",
                        file=predicted)
    result = tm_align(model.coords[:, 1].astype(np.float64), backbone.coords[:, 1].astype(np.float64),
                      "A" * model.length, "A" * backbone.length)
    return float(result.tm_norm_chain2), float(result.rmsd)
