"""`harness validate`: everything that can be checked without data files or running; given a store, also which
claims were stated after its results (`harness.claim_registry`)."""
from __future__ import annotations

from pathlib import Path

from harness.claim_registry import POST_HOC, suite_standings
from harness.dataset_files import data_root
from harness.extras import family_unavailable
from harness.module_references import check_module_references
from harness.planner import check_dataset, check_run_count, check_split, in_matrix, method_variants
from harness.registry import metrics as metric_registry
from harness.stats import ALPHA, POWER, minimum_detectable_effect, smallest_wilcoxon_p
from harness.suite import ClaimCheck, Suite, load_suite
from harness.yaml_source import YamlSource


def validate_suite(path: str | Path, root: Path | None = None, store: Path | None = None) -> tuple[int, list[str]]:
    """Raise `SuiteError` (or a task's `DataError`) at the first problem - a project module the suite's text names
    must exist too; return the number of method variants and the warnings. `root`: the data root the dataset
    checks resolve `path` arguments against. Where the family's extra is absent, the family's own dataset checks
    cannot run: a warning says so and what to install.
    `store`: a results store (opened read-only) whose claim registration marks the claims stated post hoc."""
    suite, source = load_suite(path)
    for file in (source.path, *source.sources):
        check_module_references(file, file.read_text(encoding="utf-8"))
    check_run_count(suite, source)
    for name in suite.datasets:
        check_split(suite, source, name)
        check_dataset(suite, source, name, data_root(root))
    variants = {name: [label for label, *_ in method_variants(suite, source, name, entry)]
                for name, entry in suite.methods.items()}
    _check_claim_representatives(suite, source, variants)
    unchecked = family_unavailable(suite.family)
    warnings = [f"{source.path}: datasets not checked by the family: {unchecked}"] if unchecked else []
    warnings += undecidable_claims(suite, source) + underpowered_claims(suite, source)
    return sum(map(len, variants.values())), warnings + (post_hoc_claims(suite, source, store) if store else [])


def _check_claim_representatives(suite: Suite, source: YamlSource, variants: dict[str, list[str]]) -> None:
    """A claim compares one variant per method: a grid method needs a named variant or a `select_by` rule."""
    for index, claim in enumerate(suite.claims):
        check = claim.check
        if check.at_matched is not None or check.select_by is not None:
            continue  # a curve of variants per seed, or a declared validation selection
        for key in ("best", "better", "than"):
            name = getattr(check, key)
            if name in variants and len(variants[name]) > 1:
                raise source.error(("claims", index, "check", key),
                                   f"'{name}' has {len(variants[name])} grid variants; a claim compares one",
                                   hint=f"Name one ({variants[name][0]}), or add 'select_by:' with a validation "
                                        "figure the methods record.")


def undecidable_claims(suite: Suite, source: YamlSource) -> list[str]:
    """Claims that the suite's seeds can never support: the smallest Wilcoxon p over its datasets,
    Holm-corrected, stays at or above alpha. Deterministic metrics are compared exactly and aggregate claims
    by an interval; neither warns."""
    warnings = []
    seeds = len(suite.defaults.seeds)
    for index, claim in enumerate(suite.claims):
        metric = claim.check.metric
        if metric in suite.metrics and metric_registry.get(metric, suite.family).deterministic:
            continue
        if claim.check.aggregate is not None:
            continue  # decided by a bootstrap interval over all datasets, not by Wilcoxon tests per dataset
        datasets = len(_claim_datasets(suite, claim.check))
        if not datasets:
            continue
        floor = min(1.0, smallest_wilcoxon_p(seeds) * datasets)  # Holm's first step: the smallest p x family size
        if floor >= ALPHA:
            needed = next(n for n in range(1, 64) if smallest_wilcoxon_p(n) * datasets < ALPHA)
            error = source.error(("claims", index), f"claim '{claim.text}' is undecidable with {seeds} seeds: "
                                 f"the smallest one-sided Wilcoxon p is {smallest_wilcoxon_p(seeds):.3g}, "
                                 f"{floor:.3g} after Holm over {datasets} dataset(s), not below {ALPHA}",
                                 hint=f"Run at least {needed} seeds.")
            warnings.append(str(error))
    return warnings


def underpowered_claims(suite: Suite, source: YamlSource) -> list[str]:
    """Claims stating an `effect_size` that the suite's seeds detect with power below 0.8 (one-sided signed-rank
    test at alpha over the claim's datasets), with the number of seeds that would."""
    warnings = []
    seeds = len(suite.defaults.seeds)
    for index, claim in enumerate(suite.claims):
        effect = claim.check.effect_size
        datasets = len(_claim_datasets(suite, claim.check))
        if effect is None or not datasets:
            continue
        needed = seeds_to_detect(effect, datasets)
        if needed > seeds:
            error = source.error(("claims", index, "check", "effect_size"),
                                 f"claim '{claim.text}' states an effect of {effect:g} standard deviations: "
                                 f"{seeds} seeds detect it with power below {POWER} (one-sided signed-rank test, "
                                 f"alpha {ALPHA} over {datasets} dataset(s))", hint=f"Run at least {needed} seeds.")
            warnings.append(str(error))
    return warnings


def post_hoc_claims(suite: Suite, source: YamlSource, store: Path) -> list[str]:
    """A warning per claim added or edited after `store` held results of the suite, and one when the store holds
    its results but no registration (stored before registrations were kept): pre-registration is then unknown."""
    from harness.store import Store

    with Store(store, read_only=True) as results:
        registration = results.claim_registration(suite.suite)
        unknown = registration is None and not results.claims_unregistered(suite.suite, ())
    if unknown:
        return [f"{source.path}: store {store} holds runs of suite '{suite.suite}' but no registration of its claims "
                "(stored before registrations were kept): whether they were stated before the results is unknown"]
    return [str(source.error(("claims", index), f"claim '{claim.text}' is {standing.note}",
                             hint="Its verdict was not predicted before the results: say so where it is cited, or "
                                  "restore the registered text and check."))
            for index, (claim, standing) in enumerate(zip(suite.claims, suite_standings(suite, registration),
                                                          strict=True))
            if standing.state == POST_HOC]


def seeds_to_detect(effect_size: float, datasets: int = 1, most: int = 10_000) -> int:
    """The fewest seeds whose minimum detectable effect, in standard deviations, is at most `effect_size`."""
    return next((n for n in range(2, most) if minimum_detectable_effect(1.0, n, datasets) <= effect_size), most)


def _claim_datasets(suite: Suite, check: ClaimCheck) -> list[str]:
    """The datasets a claim is tested on: its own, or every dataset the matrix pairs its methods with."""
    names = [n.split("[", 1)[0] for n in (check.best, check.better, check.than) if n is not None]
    candidates = [check.dataset] if check.dataset else list(suite.datasets)
    return [d for d in candidates if all(in_matrix(suite, name, d) for name in names)]
