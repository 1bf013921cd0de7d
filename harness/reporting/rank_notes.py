"""The rank statistics' sentences and table cells, in plain text: the Markdown, LaTeX and HTML reports escape
and lay them out, so the three say the same thing in the same words."""
from __future__ import annotations

from dataclasses import dataclass

from harness.reporting.rank_report import RankReport
from harness.reporting.rank_tests import smallest_two_sided_p
from harness.reporting.rank_uncertainty import LEVEL, MethodRank

HEADING = "Ranks with their uncertainty, and the methods compared over datasets"


def probability_text(p: float) -> str:
    """P(best) to two decimals; 0 and 1 when exact, and a share near either '< 0.01' or '> 0.99', never '0.00'."""
    if p in (0.0, 1.0):
        return f"{p:.0f}"
    return "< 0.01" if p < 0.005 else "> 0.99" if p >= 0.995 else f"{p:.2f}"


def rank_columns(ranks: RankReport) -> list[str]:
    """The rank table's value columns: the mean rank, P(best), then each dataset's rank when there are several."""
    mean = f"mean rank [{LEVEL:.0%}]" if len(ranks.datasets) > 1 else f"rank [{LEVEL:.0%}]"
    return [mean, "P(best)", *(ranks.datasets if len(ranks.datasets) > 1 else [])]


def rank_cells(ranks: RankReport, row: MethodRank) -> list[str]:
    cells = [row.mean_rank.text, probability_text(row.p_best)]
    return cells + ([r.text for r in row.by_dataset] if len(ranks.datasets) > 1 else [])


def method_note(ranks: RankReport) -> str:
    """How the ranks and their intervals are computed."""
    found = ranks.uncertainty
    pooled = (" and the mean rank over the datasets redraws the datasets too" if len(ranks.datasets) > 1 else "")
    return (f"Ranks on {ranks.metric}, 1 = best, by each cell's mean over seeds; tied means share their average "
            f"rank. Intervals: {LEVEL:.0%} bootstrap percentiles of {found.draws} draws (numpy seed {found.seed}): "
            f"each cell's seeds are redrawn with replacement{pooled}. P(best): the share of draws in which the "
            "method has the best mean rank (a tie for first shares the draw)")


def short_method_note(ranks: RankReport) -> str:
    """`method_note` in a caption's few words."""
    over = "seeds and datasets" if len(ranks.datasets) > 1 else "seeds"
    return (f"ranks on {ranks.metric} (1 = best) with {LEVEL:.0%} bootstrap intervals over {over}; P(best): the "
            "share of draws in which the method ranks best")


def leader_note(ranks: RankReport) -> str:
    """The leader, and the datasets on which it is not first."""
    found = ranks.uncertainty
    tied = [row.method for row in found.methods[1:] if row.mean_rank.rank == found.methods[0].mean_rank.rank]
    leader = f"Leader: {found.leader}" + (f", tied on mean rank with {', '.join(tied)} and ahead on P(best)"
                                          if tied else "")
    if len(ranks.datasets) == 1:
        return leader
    if not found.flips:
        return f"{leader}; first (or tied first) on every dataset"
    flips = "; ".join(f"{flip.dataset} ({', '.join(flip.first)} first)" for flip in found.flips)
    return f"{leader}. Datasets on which it is not first: {flips}"


def coverage_notes(ranks: RankReport) -> list[str]:
    """Which methods are left out and which cells lost seeds, when any."""
    notes = []
    if ranks.left_out:
        notes.append(f"Left out, without a measured cell on every dataset: {', '.join(ranks.left_out)}")
    if ranks.lost_seeds:
        notes.append(f"{ranks.lost_seeds} cells lost seeds (failed or NaN runs) and are ranked on the seeds they have")
    return notes


def comparison_notes(ranks: RankReport) -> list[str]:
    """Friedman's verdict, Nemenyi's critical difference and the Holm-corrected Wilcoxon pairs, or why not shown."""
    comparison = ranks.comparison
    if comparison is None:
        return [f"Friedman test and critical-difference diagram: not shown, as {ranks.not_compared}"]
    test = comparison.friedman
    methods, datasets = test.methods, test.datasets
    verdict = ("the mean ranks differ" if comparison.differ else
               "no difference in mean ranks is detected, so neither post-hoc result below is read as a difference")
    notes = [f"Friedman test over {datasets} datasets (the blocks) and {methods} methods: χ² = {test.statistic:.2f}, "
             f"p = {test.p_value:.2g}: {verdict} (α = {comparison.alpha:g})",
             f"Nemenyi post-hoc test: q = {comparison.q:.3f}, CD = q·√(k(k+1)/(6N)) = {comparison.cd:.2f} ranks; "
             "methods joined by a bar in the critical-difference diagram differ by less, so no pair of them differs "
             "significantly"]
    significant = [pair for pair in comparison.pairs if pair.significant(comparison.alpha)]
    pairs = (f"Holm-corrected pairwise Wilcoxon signed-rank tests over the datasets (two-sided): {len(significant)} "
             f"of {len(comparison.pairs)} pairs differ")
    if significant:
        pairs += ": " + "; ".join(f"{ranks.methods[pair.better]} better than "
                                  f"{ranks.methods[pair.second if pair.better == pair.first else pair.first]} "
                                  f"(p = {pair.p_holm:.2g})" for pair in significant)
    elif smallest_two_sided_p(datasets) >= comparison.alpha:
        pairs += (f"; with {datasets} datasets the smallest p a pair can reach is {smallest_two_sided_p(datasets):g}, "
                  "so none can")
    return notes + [pairs]


@dataclass(frozen=True)
class RankView:
    """The rank statistics as an HTML page shows them (`templates/ranks.html.j2`): text only, escaped there."""

    metric: str
    method_note: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (method, its cells), best first
    notes: tuple[str, ...]       # the leader and its flips, who is left out
    comparison: tuple[str, ...]  # the tests over datasets, or why they are not shown
    leader: str
    leader_p_best: str


def rank_view(ranks: RankReport) -> RankView:
    found = ranks.uncertainty
    return RankView(ranks.metric, method_note(ranks), tuple(rank_columns(ranks)),
                    tuple((row.method, tuple(rank_cells(ranks, row))) for row in found.methods),
                    (leader_note(ranks), *coverage_notes(ranks)), tuple(comparison_notes(ranks)), found.leader,
                    probability_text(found.methods[0].p_best))
