"""The analysis report's tables from hand-built runs: the reasoning table in T-MiCRo-1's layout with the floor and
the cited row, the own-domain test per mixture and the non-inferiority rows of both MiCRo variants."""
from __future__ import annotations

import pandas as pd

from methods.common.corpus import DOMAINS
from methods.modular_lm.analysis_report import noninferiority, own_domain_most, reasoning_table
from methods.modular_lm.metrics import ScoredRun
from methods.modular_lm.reasoning import KINDS


def run(correct_share: float, seed: int) -> ScoredRun:
    """Ten corpus questions per domain routed to their own expert (right for `correct_share`, plus a seed's
    nudge), and each expert's removal costing its own domain 0.5; four reasoning items per kind, one right."""
    rows = []
    for condition in ["full", *(f"remove:{e}" for e in range(4))]:
        for d, domain in enumerate(DOMAINS):
            removed = condition == f"remove:{d}"
            counts = [[5 if e == d else 0 for e in range(4)]] if condition == "full" else None
            rows += [(condition, f"{domain}-{i}", domain, False, (i < 10 * correct_share + seed % 2) and
                      not (removed and i < 5), counts, "") for i in range(10)]
        rows += [(condition, f"reason-{k}-{i}", KINDS[k][0], True, i == 0, None, k) for k in KINDS for i in range(4)]
    return ScoredRun(pd.DataFrame(rows, columns=["condition", "id", "domain", "ood", "correct", "routing",
                                                 "reasoning"]))


RUNS = {"dense": [(s, run(0.5, s)) for s in range(6)], "micro": [(s, run(0.6, s)) for s in range(6)],
        "micro_unsup": [(s, run(0.4, s)) for s in range(6)], "mob": [(s, run(0.5, s)) for s in range(6)]}


def test_the_reasoning_table_has_a_row_per_model_the_floor_and_the_cited_row():
    lines = reasoning_table(RUNS)
    assert lines[0].startswith("| model | GSM8K: arithmetic | BBH (logical deduction): deduction")
    assert sum("(tiny Llama, 6 seeds) | 25.0 | 25.0 | 25.0 | 25.0 | 25.0 |" in line for line in lines) == 4
    assert "floor" in lines[-2] and "42.0" in lines[-1] and "not comparable" in lines[-1]


def test_removing_own_experts_is_the_diagonal_and_significant_over_six_seeds():
    rows = {line.split(" | ")[0].lstrip("| "): line for line in own_domain_most(RUNS)[2:]}
    assert "| +0.5000 | 1.00 | 0.016 |" in rows["micro"] and set(rows) == {"micro", "micro_unsup", "mob"}


def test_noninferiority_compares_both_micro_variants_with_both_baselines():
    lines = noninferiority(RUNS)
    assert [line.split(" | ")[0] for line in lines[4:]] == ["| micro - dense", "| micro - mob", "| micro_unsup - dense",
                                                            "| micro_unsup - mob"]
    assert lines[4].endswith("| yes | yes |") and lines[6].endswith("| no | no |")
