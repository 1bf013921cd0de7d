"""The family's metrics (T-PA-1's columns), pure functions of `ScoredDesigns`, averaged over test backbones:
recovery and diversity on the sequences, the oracles' objectives, ProtParam's figures (Biopython's own), the
hypervolume and win rate on (designability, developability), the KL to the reference policy (`kl_reference`, the
first pass's plug-in log-ratio, not a KL; `kl_full`, a KL) and the independent threading judges (`shuffle_z`,
`sp_z`, `sp_z_real`, `contact_energy`; contact_potential.py says what they can and cannot tell)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from harness import Metric
from methods.protein_design.pareto import hypervolume, win_rate
from methods.protein_design.backbone_pool import IDEAL_PREFIX
from methods.protein_design.scored import BackboneDesigns, ScoredDesigns

# hypervolume's reference point: uniform-guess log-likelihood log(1/20) and the most hydrophobic GRAVY (4.5)
HV_REFERENCE = np.array([np.log(1 / 20), -4.5])
PARETO = ("designability", "developability")


def identity(a: str, b: str) -> float:
    return float(np.mean([x == y for x, y in zip(a, b, strict=True)]))


def _mean(per_backbone: Callable[[BackboneDesigns], float], real_only: bool = False
          ) -> Callable[[ScoredDesigns], float]:
    """The mean over test backbones (NaN ones skipped); `real_only`: over those not named as the pool's generated
    chains (backbone_pool.IDEAL_PREFIX), where the threading judges are informative (contact_potential.py)."""
    def metric(run: ScoredDesigns) -> float:
        values = [per_backbone(b) for b in run.backbones if not (real_only and b.name.startswith(IDEAL_PREFIX))]
        values = [v for v in values if not np.isnan(v)]
        return float(np.mean(values)) if values else float("nan")
    return metric


def recovery(b: BackboneDesigns) -> float:
    """Per cent of positions equal to the native, over the designs; NaN without a native."""
    return float("nan") if b.native is None else 100 * float(np.mean([identity(s, b.native) for s in b.sequences]))


def diversity(b: BackboneDesigns) -> float:
    """Mean pairwise sequence distance (per cent of differing positions) among the designs."""
    pairs = [(i, j) for i in range(len(b.sequences)) for j in range(i + 1, len(b.sequences))]
    return 100 * float(np.mean([1 - identity(b.sequences[i], b.sequences[j]) for i, j in pairs])) if pairs \
        else float("nan")


def _objective(name: str) -> Callable[[BackboneDesigns], float]:
    return lambda b: float(np.mean(getattr(b.objectives, name)))


def _threading(name: str) -> Callable[[BackboneDesigns], float]:
    return lambda b: float(np.nanmean(b.threading[name])) if np.isfinite(b.threading[name]).any() else float("nan")


def _protparam(name: str) -> Callable[[BackboneDesigns], float]:
    return lambda b: float(np.mean(b.protparam[name]))


def backbone_hypervolume(b: BackboneDesigns) -> float:
    return hypervolume(b.objectives.matrix(PARETO), HV_REFERENCE)


def backbone_win_rate(b: BackboneDesigns) -> float:
    return 100 * win_rate(b.objectives.matrix(PARETO), b.reference.matrix(PARETO))


RECOVERY = Metric("recovery", _mean(recovery), True, unit="%", description="sequence recovery vs the native")
DIVERSITY = Metric("diversity", _mean(diversity), True, unit="%", description="mean pairwise distance")
DESIGNABILITY = Metric("designability", _mean(_objective("designability")), True, unit="nats/res")
SOLUBILITY = Metric("solubility", _mean(_objective("solubility")), True, unit="nats/res")
DEVELOPABILITY = Metric("developability", _mean(_objective("developability")), True,
                        description="hydrophilicity, -GRAVY")
GRAVY = Metric("gravy", _mean(_protparam("gravy")), False)
INSTABILITY = Metric("instability", _mean(_protparam("instability")), False)
PI = Metric("pi", _mean(_protparam("pi")), True, description="isoelectric point (descriptive)")
AROMATICITY = Metric("aromaticity", _mean(_protparam("aromaticity")), False)
CHARGE = Metric("charge", _mean(_protparam("charge")), True, description="net charge at pH 7 (descriptive)")
HYPERVOLUME = Metric("hypervolume", _mean(backbone_hypervolume), True)
WIN_RATE = Metric("win_rate", _mean(backbone_win_rate), True, unit="%")
SC_TM = Metric("sc_tm", _mean(lambda b: float(np.nanmean(b.self_consistency[:, 0]))
                              if np.isfinite(b.self_consistency[:, 0]).any() else float("nan")), True,
               description="TM-score of your predicted structures against the backbone (tmtools)")
SC_RMSD = Metric("sc_rmsd", _mean(lambda b: float(np.nanmean(b.self_consistency[:, 1]))
                                  if np.isfinite(b.self_consistency[:, 1]).any() else float("nan")), False,
                 unit="A", description="CA RMSD of your predicted structures after TM-align (tmtools)")
KL_REFERENCE = Metric("kl_reference", _mean(lambda b: b.kl), False, unit="nats/res")
KL_FULL = Metric("kl_full", _mean(lambda b: b.kl_full), False, unit="nats/res",
                 description="KL(policy || vanilla ProteinMPNN at the design temperature, no bias) from the full "
                             "per-position distributions, mean over designed positions (kl.py); NaN for designs "
                             "without policy_kl")
SHUFFLE_Z = Metric("shuffle_z", _mean(_threading("shuffle_z")), False,
                   description="MJ threading energy z-score vs 1000 shuffles of the design (placement, not "
                               "amount, of hydrophobics)")
SP_Z = Metric("sp_z", _mean(_threading("sp_z")), False,
              description="fold specificity: MJ energy per contact on the backbone z-scored against the "
                          "packaged real chains' windows (gapless threading)")
SP_Z_REAL = Metric("sp_z_real", _mean(_threading("sp_z"), real_only=True), False,
                   description="sp_z over the test backbones not named as the pool's generated chains (ideal_*): "
                               "on `pool`, the real chains")
CONTACT_ENERGY = Metric("contact_energy", _mean(_threading("contact_energy")), False, unit="RT/res",
                        description="MJ contact energy per residue (lower: more hydrophobic contacts, so a "
                                    "more polar design raises it whatever its placement)")
