"""The family end to end through the CLI: committed suites, a small fidelity suite with its report,
bring-your-own masks, and a bad capture file as a user error."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import harness
from harness.cli import main
from harness.suite import load_suite
from kernels.block_layout import causal_block_mask
from methods.sparse_attention.data import structured
from methods.sparse_attention.task import masks_to_table

REPO = Path(__file__).resolve().parents[2]
SUITES = sorted(p.name for p in (REPO / "suites").glob("sparse_attention_*.yaml"))

SMALL_SUITE = """\
schema_version: 1
suite: sparse_small
task: sparse_attention.prefill
defaults: {seeds: [0, 1], threads: 1, timeout: 5m}
datasets:
  planted: {loader: structured, args: {seq_len: 512, q_heads: 4, kv_heads: 2, head_dim: 32, layers: 1, spans: 4},
            split: {block_size: 32}}
metrics: [recall_mean, recall_p1, density, output_rel_error]
methods:
  dense: {impl: dense}
  oracle: {impl: oracle, params: {gamma: [0.6, 0.9]}}
  proxyattn: {impl: proxyattn, params: {gamma: [0.6, 0.9], min_budget: 64}}
  mine: {predictions: "masks/{method}-{dataset}-{seed}.parquet"}
claims:
  - {text: "oracle bounds ProxyAttn",
     check: {metric: recall_mean, better: oracle, than: proxyattn, at_matched: density}}
report: {metric: recall_mean, measures: [estimation_ms, estimation_flop_fraction],
         tradeoffs: [{x: density, y: recall_mean}]}
"""


def test_committed_suites_validate():
    assert len(SUITES) >= 4
    for name in SUITES:
        suite, _ = load_suite(REPO / "suites" / name)
        assert suite.task.startswith("sparse_attention.")


@pytest.mark.slow
def test_a_fidelity_suite_runs_scores_your_own_masks_and_reports_fronts_and_claims(tmp_path):
    (tmp_path / "masks").mkdir()
    for seed in (0, 1):  # bring-your-own: the dense mask, which must score recall 1
        case = structured(seq_len=512, q_heads=4, kv_heads=2, head_dim=32, layers=1, spans=4).cases(seed)[0]
        table = masks_to_table([case.name], (causal_block_mask(4, 512, 32),))
        table.to_parquet(tmp_path / "masks" / f"mine-planted-{seed}.parquet")
    suite = tmp_path / "suite.yaml"
    suite.write_text(SMALL_SUITE)
    frame = harness.run(suite, store=tmp_path / "s.sqlite", executor="inline")
    assert len(frame) == 12 and set(frame["status"]) == {"ok"}
    by_method = frame.groupby("method")
    assert by_method["metric.recall_mean"].mean()["mine"] == pytest.approx(1.0)
    assert by_method["metric.density"].mean()["dense"] == pytest.approx(1.0)
    assert by_method["metric.density"].mean()["proxyattn[gamma=0.6]"] < 0.8
    out = tmp_path / "report"
    assert main(["report", str(suite), "--store", str(tmp_path / "s.sqlite"), "--out", str(out),
                 "--format", "md,png"]) == 0
    assert (out / "tradeoff_recall_mean_vs_density.png").is_file()
    text = (out / "report.md").read_text()
    assert "oracle bounds ProxyAttn" in text and "at matched density" in text
    assert "estimation\\_flop\\_fraction" in text


def test_a_capture_file_with_nan_stops_the_suite_with_exit_3_naming_it(tmp_path, capsys):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 1, 2, 64, 16)).astype(np.float32)
    q[0, 0, 1, 7, 2] = np.nan
    (tmp_path / "caps").mkdir()
    np.savez(tmp_path / "caps" / "bad.npz", q=q, k=q[:, :, :1].copy(), v=q[:, :, :1].copy())
    suite = tmp_path / "suite.yaml"
    suite.write_text(textwrap.dedent("""\
        schema_version: 1
        suite: bad_capture
        task: sparse_attention.prefill
        datasets:
          cap: {loader: captured, args: {path: caps/bad.npz}, split: {block_size: 16}}
        metrics: [recall_mean]
        methods:
          dense: {impl: dense}
        """))
    code = main(["run", str(suite), "--store", str(tmp_path / "s.sqlite"), "--data-root", str(tmp_path)])
    assert code == 3
    err = capsys.readouterr().err
    assert "bad.npz" in err and "non-finite" in err and "Traceback" not in err


BYO_MASKS_SUITE = """\
schema_version: 1
suite: sparse_byo
task: sparse_attention.prefill
defaults: {seeds: [0]}
datasets:
  planted: {loader: structured, args: {seq_len: 128, q_heads: 2, kv_heads: 1, head_dim: 16, layers: 1, spans: 1},
            split: {block_size: 32}}
metrics: [recall_mean, density]
methods:
  mine: {predictions: "masks/{method}-{dataset}-{seed}.csv"}
"""


def _dense_masks(path: Path) -> None:
    case = structured(seq_len=128, q_heads=2, kv_heads=1, head_dim=16, layers=1, spans=1).cases(0)[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    masks_to_table([case.name], (causal_block_mask(2, 128, 32),)).to_csv(path, index=False)


def test_your_own_masks_are_scored_and_a_repeated_block_names_its_file_and_line(cli, write_suite, store, tmp_path):
    from harness.store import Store

    path = tmp_path / "masks" / "mine-planted-0.csv"
    _dense_masks(path)
    suite = write_suite(BYO_MASKS_SUITE)
    code, out, _ = cli("score", str(suite), "--store", str(store), plugin=False)
    [record] = Store(store).records()
    assert code == 0, out
    assert record["metrics"] == {"recall_mean": pytest.approx(1.0), "density": pytest.approx(1.0)}
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, lines[3]]) + "\n")  # the third block again, on the file's last line
    code, _, _ = cli("score", str(suite), "--store", str(tmp_path / "other.sqlite"), plugin=False)
    [record] = Store(tmp_path / "other.sqlite").records()
    assert code == 2 and record["status"] == "failed"
    assert f"{path}:{len(lines) + 1}: case: a second row for head 0, q_block 1, k_block 1" in record["error"]
