#!/usr/bin/env bash
# Regenerates reports/<suite>/ for every committed suite on this machine (CPU): runs what the
# store lacks, then renders the committed formats from the store. Usage: bash reports/regenerate.sh
# `--from-runs` re-renders every report from its committed runs.csv instead, running nothing (after a
# change to how reports are rendered or claims checked). Render from a clean tree: the footer records it.
# `--site` builds the leaderboard site, reports/site/ (open reports/site/index.html), from the committed
# runs.csv files, running nothing: the pages are generated (plots embedded, megabytes), so git ignores them.
set -euo pipefail
cd "$(dirname "$0")/.."
store="${HARNESS_STORE:-.harness/results.sqlite}"
mode="${1:-}"
case "$mode" in
  ""|--from-runs|--site) ;;
  *) echo "usage: bash reports/regenerate.sh [--from-runs | --site]" >&2; exit 2 ;;
esac
# The real graphs: $HARNESS_DATA_ROOT, else the shared data folder beside the checkout.
if [ -z "${HARNESS_DATA_ROOT:-}" ] && [ -d ../shared/data ]; then
  export HARNESS_DATA_ROOT="$(cd ../shared/data && pwd)"
fi
if [ "$mode" = "--site" ]; then
  exec harness site --out reports/site --plots
fi
formats=md,tex,csv,png
for suite in quickstart gad_real gad_apf gad_apf_ablation driving_fcp driving_conventions plg_motifs plg_curves plg_prism plg_lws_coil_del \
    plg_prism_ablation sparse_attention_fidelity sparse_attention_ablation sparse_attention_speed \
    sparse_attention_fidelity_tiny sparse_attention_ruler_tiny zo_memory zo_ablation zo_accuracy_tiny \
    math_eval math_stat math_grace defer_topk_ci defer_topk defer_topk_ablation \
    visual_puzzles_ci visual_puzzles spacecontrol_ci spacecontrol_tradeoff lm_eval_tiny \
    usplat4d_ci usplat4d_views usplat4d_ablation motion_tokenizer_ci motion_tokenizer motion_video_metrics \
    rl_sem_ci rl_sem_diagnostic rl_sem_offpolicy rl_sem_classic omnimouse_ci omnimouse_tasks omnimouse_scaling \
    molopt_ci molopt_tomg protein_ci protein_hp_lattice protein_mompnn pcg_ci pcg_scaling pcg_generators pcg_curriculum \
    micro_ci micro_main micro_analysis masa_ci masa_init masa_ablation; do
  case "$mode" in
    --from-runs) harness report "suites/$suite.yaml" --runs "reports/$suite/runs.csv" --out "reports/$suite" --format "$formats" ;;
    *) harness run "suites/$suite.yaml" --store "$store" --jobs 2
       harness report "suites/$suite.yaml" --store "$store" --out "reports/$suite" --format "$formats" ;;
  esac
done
# The paper's Fig. 1 as stacked bars, from the zo_memory runs just reported.
python -m methods.zo_finetune.figures reports/zo_memory/runs.csv reports/zo_memory/memory_breakdown.png
# Top-k L2D's T-L2D-1 and T-L2D-3 layouts (a table per dataset), from the cells just reported.
python -m methods.deferral.tables reports/defer_topk/table.csv reports/defer_topk/tables.md
python -m methods.deferral.tables reports/defer_topk_ablation/table.csv reports/defer_topk_ablation/tables.md
# ThinkMorph's T-TM-1 (cited) and T-TM-2 (our puzzles) layouts and the best-of-N curves, from the cells just reported.
python -m methods.visual_reasoning.tables reports/visual_puzzles/table.csv reports/visual_puzzles/tables.md
python -m methods.visual_reasoning.best_of_n reports/visual_puzzles/table.csv reports/visual_puzzles/best_of_n.png
# USplat4D's T-US-2 layout (a table per scene kind), from the cells just reported.
python -m methods.dynamic_splatting.tables reports/usplat4d_views/table.csv reports/usplat4d_views/tables.md
python -m methods.dynamic_splatting.tables reports/usplat4d_ablation/table.csv reports/usplat4d_ablation/tables.md
# DePO's T-DePO-1 layout (SR, Sim, SR x Sim per property; DePO's relative gains), from the cells just reported.
python -m methods.molecule_opt.tables reports/molopt_tomg/table.csv reports/molopt_tomg/tables.md
# lm-eval's own results layout (task, version, filter, n-shot, metric, value, stderr), from the runs just reported.
python -m methods.lm_eval_tasks.lm_eval_table reports/lm_eval_tiny/runs.csv reports/lm_eval_tiny/lm_eval.md
# SEM's runtime cost as per-seed ratios to the vanilla agent with 95 % intervals, from the runs just reported.
python -m methods.rl_representations.overhead reports/rl_sem_classic/runs.csv reports/rl_sem_classic/overhead.md --baseline ppo
python -m methods.rl_representations.overhead reports/rl_sem_offpolicy/runs.csv reports/rl_sem_offpolicy/overhead.md --baseline td3
# OmniMouse's T-OM-2: the scaling grid, power-law fits in data and parameters and the saturation test.
python -m methods.neural_encoding.scaling reports/omnimouse_scaling/runs.csv reports/omnimouse_scaling/scaling.md
# T-PCG-1 and the √m verdict (per-seed slopes of log2 pos_90 against log2 m, seed-bootstrap interval).
python -m methods.prng_learning.scaling reports/pcg_scaling/runs.csv reports/pcg_scaling/scaling.md 32
# STAT's Table 3 layout (gains against Base and SFT) and GRACE's per-teacher table, from the runs just reported
# (they read the runs' predictions from the store, so `--from-runs` keeps the committed ones).
if [ "$mode" != "--from-runs" ]; then
  python -m methods.math_reasoning.stat_report reports/math_stat/runs.csv reports/math_stat/table3.md
  python -m methods.math_reasoning.grace_report reports/math_grace/runs.csv reports/math_grace
fi
# MoMPNN's T-PA-1 and T-PA-2 (pareto_rounds.png) and the HP toy's T-PA-3 layouts, from the reports just written.
python -m methods.protein_design.tables reports/protein_mompnn reports/protein_mompnn/tables.md
python -m methods.protein_design.tables reports/protein_hp_lattice reports/protein_hp_lattice/tables.md
# MiCRo's ablation heatmap, per-layer routing tables and non-inferiority check (T-MiCRo-2/3), from the runs just
# reported (they read the runs' predictions from the store, so `--from-runs` keeps the committed ones).
if [ "$mode" != "--from-runs" ]; then
  python -m methods.modular_lm.analysis_report reports/micro_analysis/runs.csv reports/micro_analysis --store "$store"
fi
