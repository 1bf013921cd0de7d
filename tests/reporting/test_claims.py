"""Claims: one representative per method, tests per dataset combined by Holm, five honest verdicts."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from harness.reporting.claim_sides import CONTRADICTED, NOT_MEASURABLE, NOT_SIGNIFICANT, SUPPORTED, UNDECIDABLE
from harness.reporting.claims import check_claim
from harness.reporting.model import Cell, MetricInfo
from harness.stats import summarize
from harness.suite import ClaimCheck

ACCURACY = MetricInfo("accuracy", True, "quality")


def _data(values: dict[tuple[str, str, str], list[float]], infos: dict[str, MetricInfo] | None = None):
    """A report model stand-in: (method label, dataset, metric) -> one value per seed 0, 1, ..."""
    cells = {}
    for (method, dataset, metric), per_seed in values.items():
        seeds = tuple(range(len(per_seed)))
        cells[(method, dataset, metric)] = Cell(method, dataset, metric, summarize(per_seed), seeds, tuple(per_seed),
                                                tuple(f"{method}-{dataset}-{s}" for s in seeds))
    return SimpleNamespace(methods=tuple(dict.fromkeys(m for m, _, _ in values)),
                           datasets=tuple(dict.fromkeys(d for _, d, _ in values)),
                           metrics=infos or {"accuracy": ACCURACY}, cell=lambda m, d, k: cells.get((m, d, k)))


def _gain(base: float, gain: float, seeds: int, jitter: float = 0.1) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(int(base))
    b = list(base + rng.normal(0, 1, seeds))
    return [x + gain + jitter * i for i, x in enumerate(b)], b


def test_a_grid_is_never_crossed_with_its_rival():
    a, b = _gain(50, 2.0, 6)
    values = {("b", "d", "accuracy"): b}
    for g in range(4):  # four variants of a: crossing them with b would make 24 "pairs" of 6 seeds
        values[(f"a[g={g}]", "d", "accuracy")] = [x + g for x in a]
    data = _data(values)
    ambiguous = check_claim(data, "a beats b", ClaimCheck(metric="accuracy", better="a", than="b"))
    assert ambiguous.verdict == NOT_MEASURABLE and "4 measured variants" in ambiguous.statistic
    named = check_claim(data, "a beats b", ClaimCheck(metric="accuracy", better="a[g=0]", than="b"))
    assert named.verdict == SUPPORTED and "over 6 seeds" in named.statistic
    assert len(named.run_ids) == 12  # a[g=0]'s and b's six runs, nothing else


def test_select_by_picks_the_variant_on_validation_never_on_test():
    a, b = _gain(50, 2.0, 6)
    infos = {"accuracy": ACCURACY, "val_acc": MetricInfo("val_acc", True, "hardware")}
    data = _data({("a[g=0]", "d", "accuracy"): [x + 5 for x in a], ("a[g=1]", "d", "accuracy"): a,
                  ("a[g=0]", "d", "val_acc"): [1.0] * 6, ("a[g=1]", "d", "val_acc"): [2.0] * 6,
                  ("b", "d", "accuracy"): b}, infos)
    result = check_claim(data, "t", ClaimCheck(metric="accuracy", better="a", than="b", select_by="val_acc"))
    assert "a[g=1] vs b" in result.statistic  # the better validation score, although a[g=0] is better on test
    with pytest.raises(ValueError, match="own metric"):
        ClaimCheck(metric="accuracy", better="a", than="b", select_by="accuracy")


def test_one_strong_dataset_and_two_weak_ones_are_not_supported_overall():
    rng = np.random.default_rng(3)
    values = {}
    for dataset, gain, noise in (("strong", 20.0, 0.1), ("weak1", 0.3, 2.0), ("weak2", 0.1, 2.0)):
        b = 50 + rng.normal(0, 1, 10)
        values |= {("a", dataset, "accuracy"): list(b + gain + rng.normal(0, noise, 10)),
                   ("b", dataset, "accuracy"): list(b)}
    result = check_claim(_data(values), "a beats b", ClaimCheck(metric="accuracy", better="a", than="b"))
    assert result.verdict == NOT_SIGNIFICANT
    assert result.statistic.startswith("holds on 1 of 3 dataset(s)")
    pooled = check_claim(_data(values), "t", ClaimCheck(metric="accuracy", better="a", than="b", dataset="strong"))
    assert pooled.verdict == SUPPORTED


@pytest.mark.parametrize(("seeds", "datasets", "verdict"), [
    (3, 1, UNDECIDABLE),   # 2^-3 = 0.125
    (5, 1, SUPPORTED),     # 2^-5 = 0.031
    (6, 4, UNDECIDABLE),   # 2^-6 x 4 = 0.0625 after Holm
    (7, 4, SUPPORTED),     # 2^-7 x 4 = 0.031
])
def test_the_undecidable_case_is_detected_from_n(seeds, datasets, verdict):
    values = {}
    for d in range(datasets):
        a, b = _gain(40 + d, 3.0, seeds)
        values |= {("a", f"d{d}", "accuracy"): a, ("b", f"d{d}", "accuracy"): b}
    result = check_claim(_data(values), "t", ClaimCheck(metric="accuracy", better="a", than="b"))
    assert result.verdict == verdict
    assert ("more seeds are needed" in result.statistic) == (verdict == UNDECIDABLE)


def test_a_significant_loss_contradicts_and_a_small_one_does_not():
    a, b = _gain(50, -3.0, 8)
    assert check_claim(_data({("a", "d", "accuracy"): a, ("b", "d", "accuracy"): b}), "t",
                       ClaimCheck(metric="accuracy", better="a", than="b")).verdict == CONTRADICTED
    noise = list(np.random.default_rng(1).normal(0, 1, 8))
    b = [50.0 + 0.1 * i for i in range(8)]
    result = check_claim(_data({("a", "d", "accuracy"): [x + y for x, y in zip(b, noise, strict=True)],
                                ("b", "d", "accuracy"): b}), "t", ClaimCheck(metric="accuracy", better="a", than="b"))
    assert result.verdict == NOT_SIGNIFICANT


def test_best_compares_with_the_strongest_rival_per_dataset():
    a, b = _gain(50, 2.0, 6)
    data = _data({("x", "d", "accuracy"): a, ("y", "d", "accuracy"): b, ("z", "d", "accuracy"): [0.0] * 6})
    result = check_claim(data, "x is best", ClaimCheck(metric="accuracy", best="x"))
    assert result.verdict == SUPPORTED and "x vs y" in result.statistic


def test_a_deterministic_metric_is_compared_exactly_with_no_p_value():
    infos = {"memory": MetricInfo("memory", False, "quality", "GB", deterministic=True)}
    data = _data({("q", "m1", "memory"): [5.0], ("m", "m1", "memory"): [15.2],
                  ("q", "m2", "memory"): [4.8], ("m", "m2", "memory"): [5.6]}, infos)
    result = check_claim(data, "q needs less", ClaimCheck(metric="memory", better="q", than="m"))
    assert result.verdict == SUPPORTED and "p " not in result.statistic and "no p-value" in result.statistic
    worse = check_claim(data, "m needs less", ClaimCheck(metric="memory", better="m", than="q"))
    assert worse.verdict == CONTRADICTED


def test_a_dataset_where_the_metric_is_undefined_for_both_sides_is_left_out():
    nan = float("nan")
    data = _data({("a", "tiny", "accuracy"): [2.0] * 5, ("b", "tiny", "accuracy"): [1.0] * 5,
                  ("a", "full", "accuracy"): [nan] * 5, ("b", "full", "accuracy"): [nan] * 5})
    result = check_claim(data, "t", ClaimCheck(metric="accuracy", better="a", than="b"))
    assert result.verdict == SUPPORTED and result.statistic.startswith("holds on 1 of 1")
    one_sided = _data({("a", "d", "accuracy"): [2.0] * 5, ("b", "d", "accuracy"): [nan] * 5})
    assert check_claim(one_sided, "t", ClaimCheck(metric="accuracy", better="a", than="b")).verdict == NOT_MEASURABLE


def test_a_figure_without_direction_cannot_be_claimed():
    data = _data({("a", "d", "count"): [1.0, 2.0], ("b", "d", "count"): [0.0, 1.0]},
                 {"count": MetricInfo("count", None, "hardware")})
    assert check_claim(data, "t", ClaimCheck(metric="count", better="a", than="b")).verdict == NOT_MEASURABLE


# --- at matched density: a method's points against a rival's curve interpolated at the same x


def _curves(points: dict[str, list[tuple[float, float]]], seeds: int = 6):
    values = {}
    for variant, (x, y) in ((v, p) for v, pts in points.items() for p in pts):
        values[(variant, "d", "density")] = [x] * seeds
        values[(variant, "d", "recall")] = [y + ((s % 3) / 200 if variant[0] == "a" else 0.0) for s in range(seeds)]
    infos = {"recall": MetricInfo("recall", True, "quality"), "density": MetricInfo("density", False, "quality")}
    return _data(values, infos)


def _points(method: str, pairs: list[tuple[float, float]]):
    return {f"{method}[g={i}]": [pair] for i, pair in enumerate(pairs)}


MATCHED = ClaimCheck(metric="recall", better="a", than="b", at_matched="density")


def test_a_method_above_the_rivals_curve_is_supported_even_at_higher_density():
    data = _curves(_points("a", [(0.3, 0.9), (0.5, 0.97)]) | _points("b", [(0.2, 0.7), (0.6, 0.9)]))
    result = check_claim(data, "a beats b", MATCHED)
    assert result.verdict == SUPPORTED and "a at matched density vs b" in result.statistic
    assert "over 6 seeds" in result.statistic  # one pair per seed, not per variant


def test_a_method_below_the_rivals_curve_is_contradicted_although_its_raw_recall_is_higher():
    # a's recall 0.95 beats every b point, but at a's density 0.8 b's curve reaches 0.975.
    data = _curves(_points("a", [(0.8, 0.95)]) | _points("b", [(0.6, 0.95), (1.0, 1.0)]))
    assert check_claim(data, "t", MATCHED).verdict == CONTRADICTED


def test_points_outside_the_rivals_range_are_never_extrapolated():
    data = _curves(_points("a", [(0.1, 0.99)]) | _points("b", [(0.3, 0.5), (0.6, 0.9)]))
    assert check_claim(data, "t", MATCHED).verdict == NOT_MEASURABLE


STEP = MetricInfo("first_step", False, "quality")


def test_a_threshold_never_reached_loses_to_any_step_at_which_it_was_reached():
    """pcg_curriculum's case: the plain decoder never reached 0.2 in 6 of 6 seeds, the curriculum at step 200."""
    data = _data({("curriculum", "d", "first_step"): [200.0] * 6, ("decoder", "d", "first_step"): [math.inf] * 6},
                 {"first_step": STEP})
    result = check_claim(data, "t", ClaimCheck(metric="first_step", better="curriculum", than="decoder"))
    assert result.verdict == SUPPORTED
    assert "(decoder never reached it on 6: counted as losses)" in result.statistic
    reverse = check_claim(data, "t", ClaimCheck(metric="first_step", better="decoder", than="curriculum"))
    assert reverse.verdict == CONTRADICTED
    both = _data({("a", "d", "first_step"): [math.inf] * 6, ("b", "d", "first_step"): [math.inf] * 6},
                 {"first_step": STEP})
    assert check_claim(both, "t", ClaimCheck(metric="first_step", better="a", than="b")).verdict != SUPPORTED


def _with_failed_seed(data, method: str, dataset: str, seed: int):
    """`data` with the run of `method` at `seed` failed: its value gone, the seed among the cell's failed ones."""
    cell = data.cell(method, dataset, "accuracy")
    kept = [i for i, s in enumerate(cell.seeds) if s != seed]
    failed = Cell(method, dataset, "accuracy", summarize([cell.values[i] for i in kept]),
                  tuple(cell.seeds[i] for i in kept), tuple(cell.values[i] for i in kept),
                  tuple(cell.run_ids[i] for i in kept), failed_runs=1, failed_seeds=(seed,))
    inner = data.cell
    data.cell = lambda m, d, k: failed if (m, d, k) == (method, dataset, "accuracy") else inner(m, d, k)
    return data


def test_a_method_that_crashes_on_the_seed_where_it_would_lose_is_not_supported():
    a = [51.0, 52.0, 53.0, 54.0, 55.0, 40.0]  # loses on seed 5 only
    b = [50.0, 51.0, 52.0, 53.0, 54.0, 50.0]
    check = ClaimCheck(metric="accuracy", better="a", than="b")
    assert check_claim(_data({("a", "d", "accuracy"): a, ("b", "d", "accuracy"): b}), "t", check).verdict \
        == NOT_SIGNIFICANT
    crashed = _with_failed_seed(_data({("a", "d", "accuracy"): a, ("b", "d", "accuracy"): b}), "a", "d", 5)
    result = check_claim(crashed, "t", check)
    assert result.verdict == NOT_SIGNIFICANT  # before: supported, p = 1/32 over the five seeds left
    assert "over 6 seeds (a failed on 1: counted as losses)" in result.statistic


@pytest.mark.parametrize("seeds", [8, 12])
def test_the_detectable_effect_is_found_about_80_percent_of_the_time_by_the_wilcoxon_test(seeds):
    """Simulated normal differences of exactly the minimum detectable effect: the one-sided exact signed-rank
    test at alpha 0.05 rejects in about 80 % of 2,000 draws (the formula's power)."""
    from scipy import stats as scipy_stats

    from harness.stats import minimum_detectable_effect

    effect = minimum_detectable_effect(1.0, seeds)
    rng = np.random.default_rng(seeds)
    draws = rng.normal(effect, 1.0, (2000, seeds))
    power = np.mean([scipy_stats.wilcoxon(d, alternative="greater").pvalue < 0.05 for d in draws])
    assert 0.74 < power < 0.86, power


def test_a_claims_row_gives_the_effect_its_seeds_detect_and_none_below_the_wilcoxon_floor():
    a, b = _gain(50, 2.0, 6)
    six = check_claim(_data({("a", "d", "accuracy"): a, ("b", "d", "accuracy"): b}), "t",
                      ClaimCheck(metric="accuracy", better="a", than="b"))
    assert "detectable effect 0." in six.statistic  # differences of spread 0.19: effects above about 0.23
    four = check_claim(_data({("a", "d", "accuracy"): a[:4], ("b", "d", "accuracy"): b[:4]}), "t",
                       ClaimCheck(metric="accuracy", better="a", than="b"))
    assert "no effect detectable at this n" in four.statistic
