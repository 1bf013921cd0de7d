"""A number a report's notes quote from a committed table is that table's: a note says what was measured, so
when the runs behind a cell change, a note quoting the old figure fails here instead of contradicting the table
printed above it (issue 51: plg_prism's note quoted supervised 74.0 / 70.6 beside a table showing 70.3 / 70.7)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness.suite import load_suite

REPO = Path(__file__).resolve().parents[1]

Cell = tuple[str, str, str, str]  # the committed report it comes from, method, dataset, metric

QUOTES: list[tuple[str, str, list[Cell]]] = [  # suite whose notes quote, the quote's template, the cells it quotes
    ("plg_prism", "scores {:.1f} / {:.1f} / {:.1f} % on ENZYMES, Letter-high and COIL-DEL",
     [("plg_prism", "supervised", dataset, "accuracy") for dataset in ("enzymes_q0.3", "letter_high_q0.3",
                                                                       "coil_del_q0.1")]),
    ("plg_prism", "({:.1f} % test accuracy here", [("plg_prism", "lws", "coil_del_q0.1", "accuracy")]),
    ("plg_prism", "train accuracy at {:.1f} / {:.1f} / {:.1f} %",
     [("plg_lws_coil_del", f"lws[lr={lr}]", "coil_del_q0.1", "train_accuracy") for lr in ("0.01", "0.001", "0.0001")]),
    ("gad_apf", "APF's {:.1f} AUPRC / {:.1f} AUROC",
     [("gad_apf", "apf", "reddit", "auprc"), ("gad_apf", "apf", "reddit", "auroc")]),
    ("gad_apf", "no_pretrain scores {:.2f} / {:.1f} against APF's {:.2f} / {:.1f}",
     [("gad_apf_ablation", method, "reddit", metric)
      for method in ("no_pretrain", "apf") for metric in ("auprc", "auroc")]),
    *[("zo_ablation", "score the same, {:.1f} % on every seed", [("zo_ablation", method, "sst2", "accuracy")])
      for method in ("zero_shot", "zero_shot_q", "zero_shot_q2")],
]


def _notes(suite: str) -> str:
    return " ".join(load_suite(REPO / "suites" / f"{suite}.yaml")[0].report.notes)


def _mean(cell: Cell) -> float:
    report, method, dataset, metric = cell
    table = pd.read_csv(REPO / "reports" / report / "table.csv")
    row = table[(table["source"] == "measured") & (table["method"] == method) & (table["dataset"] == dataset)
                & (table["metric"] == metric)]
    assert len(row) == 1, f"reports/{report}/table.csv has {len(row)} rows for {method} on {dataset} ({metric})"
    return float(row["mean"].iloc[0])


@pytest.mark.parametrize(("suite", "template", "cells"), QUOTES, ids=[f"{s}:{t[:30]}" for s, t, _ in QUOTES])
def test_a_note_quotes_the_committed_table(suite, template, cells):
    quote = template.format(*map(_mean, cells))
    assert quote in _notes(suite), f"suites/{suite}.yaml's notes should say '{quote}', as the committed table does"
