"""Bad suite files: each mistake is exit 3 with the file, line and a fix, never a traceback."""
from __future__ import annotations

import pytest


def test_valid_suite_validates(cli, write_suite):
    code, out, _ = cli("validate", str(write_suite()))
    assert code == 0
    assert "2 method variants" in out


def test_typo_in_method_name_gives_line_and_did_you_mean(cli, write_suite):
    path = write_suite("""\
        schema_version: 1
        suite: toy
        task: toy.sign
        datasets: {easy: {loader: numbers}}
        metrics: [accuracy]
        methods:
          thr: {impl: treshold}
        """)
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert f"{path}:7:" in err
    assert "unknown method 'treshold'" in err
    assert "Did you mean 'threshold'" in err
    assert "Traceback" not in err


def test_malformed_yaml_names_the_line(cli, write_suite):
    path = write_suite("schema_version: 1\nsuite: toy\nmethods: [a, b\n")
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert "malformed YAML" in err and f"{path}:" in err


def test_unknown_key_lists_the_allowed_ones(cli, write_suite):
    path = write_suite("""\
        schema_version: 1
        suite: toy
        task: toy.sign
        defaults: {seeds: [0], timeout: 20s, gpu: true}
        datasets: {easy: {loader: numbers}}
        metrics: [accuracy]
        methods: {thr: {impl: threshold}}
        """)
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert ":4:" in err and "unknown key 'gpu'" in err and "seeds" in err


def test_wrong_type_is_reported_with_its_field(cli, write_suite):
    path = write_suite("""\
        schema_version: 1
        suite: toy
        task: toy.sign
        defaults: {seeds: zero}
        datasets: {easy: {loader: numbers}}
        metrics: [accuracy]
        methods: {thr: {impl: threshold}}
        """)
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert "defaults.seeds" in err and ":4:" in err


@pytest.mark.parametrize(
    ("methods_block", "expected"),
    [
        ("thr: {impl: threshold, params: {t: []}}", "empty list"),
        ("thr: {impl: threshold, params: {bogus: 1}}", "has no parameter 'bogus'"),
        ("thr: {impl: threshold, params: {noise: -1}}", "noise must be >= 0"),
        ("thr: {impl: threshold}\n  thr: {impl: threshold}", "appears twice"),
        ("a: {impl: threshold}\n  b: {impl: threshold}", "is the same run as"),
        ("thr: {}", "exactly one of 'impl'"),
    ],
)
def test_bad_method_entries_are_user_errors(cli, write_suite, methods_block, expected):
    path = write_suite(
        "schema_version: 1\nsuite: toy\ntask: toy.sign\ndatasets: {easy: {loader: numbers}}\n"
        "metrics: [accuracy]\nmethods:\n  " + methods_block + "\n"
    )
    code, _, err = cli("plan", str(path), "--store", str(path.parent / "s.sqlite"))
    assert code == 3, err
    assert expected in err
    assert "Traceback" not in err


def test_bad_split_block_is_reported_at_the_split(cli, write_suite):
    path = write_suite(
        "schema_version: 1\nsuite: toy\ntask: toy.sign\n"
        "datasets:\n  easy:\n    loader: numbers\n    split: {test_fraktion: 0.3}\n"
        "metrics: [accuracy]\nmethods: {thr: {impl: threshold}}\n"
    )
    code, _, err = cli("validate", str(path))
    assert code == 3
    assert ":7:" in err and "test_fraktion" in err


def test_missing_dataset_file_names_the_expected_path(cli, write_suite, tmp_path):
    path = write_suite(
        "schema_version: 1\nsuite: toy\ntask: toy.sign\n"
        "datasets: {f: {loader: numbers_file, args: {path: nums/missing.txt}}}\n"
        "metrics: [accuracy]\nmethods: {thr: {impl: threshold}}\n"
    )
    code, _, err = cli("plan", str(path), "--data-root", str(tmp_path / "root"))
    assert code == 3
    assert str(tmp_path / "root" / "nums" / "missing.txt") in err
    assert "--data-root" in err


def test_unknown_executor_is_a_user_error(cli, write_suite, store):
    code, _, err = cli("run", str(write_suite()), "--store", str(store), "--executor", "locl")
    assert code == 3
    assert "Did you mean 'local'" in err


def test_schema_command_prints_json_schema(cli):
    import json

    code, out, _ = cli("schema")
    schema = json.loads(out)
    assert code == 0 and "methods" in schema["properties"]


def test_ls_lists_plugin_methods_with_descriptions(cli):
    code, out, _ = cli("ls", "methods")
    assert code == 0
    assert "toy.threshold" in out and "toy method threshold" in out


DATASET_PARAMS_SUITE = """\
    schema_version: 1
    suite: toy
    task: toy.sign
    datasets: {easy: {loader: numbers, args: {shift: 1.0}}, hard: {loader: numbers, args: {shift: 0.1}}}
    metrics: [accuracy]
    methods:
      thr: {impl: threshold, params: {t: 0.1}, dataset_params: {hard: {t: 0.3}}}
    """


def test_a_list_in_dataset_params_is_a_value_not_a_grid_axis(write_suite, tmp_path):
    from harness.planner import plan
    from harness.registry import load_plugin_file
    from harness.suite import load_suite
    from tests.conftest import TOY_PLUGIN

    load_plugin_file(TOY_PLUGIN)
    text = DATASET_PARAMS_SUITE.replace("{impl: threshold, params: {t: 0.1}, dataset_params: {hard: {t: 0.3}}}",
                                        "{impl: vote, dataset_params: {hard: {thresholds: [0.3, 0.4]}}}")
    suite, source = load_suite(write_suite(text))
    runs = {run.dataset.name: run for run in plan(suite, source, tmp_path)}
    assert runs["hard"].params["thresholds"] == [0.3, 0.4] and runs["easy"].params["thresholds"] == (0.0,)


def test_dataset_params_override_params_on_their_dataset_only(write_suite, tmp_path):
    from harness.planner import plan
    from harness.registry import load_plugin_file
    from harness.suite import load_suite
    from tests.conftest import TOY_PLUGIN

    load_plugin_file(TOY_PLUGIN)
    suite, source = load_suite(write_suite(DATASET_PARAMS_SUITE))
    runs = {run.dataset.name: run for run in plan(suite, source, tmp_path)}
    assert runs["easy"].params["t"] == 0.1 and runs["hard"].params["t"] == 0.3
    assert runs["easy"].method == runs["hard"].method == "thr"  # one row in the report


@pytest.mark.parametrize("entry, message", [
    ("{impl: threshold, dataset_params: {nowhere: {t: 0.3}}}", "'nowhere' is not a dataset of this suite"),
    ("{impl: threshold, dataset_params: {hard: {tt: 0.3}}}", "has no parameter 'tt'"),
    ("{impl: threshold, dataset_params: {hard: {noise: -1}}}", "invalid parameters for 'toy.threshold' on 'hard'"),
    ("{impl: threshold, params: {t: [0.1, 0.2]}, dataset_params: {hard: {t: 0.3}}}", "overrides a grid axis"),
])
def test_bad_dataset_params_name_the_line(cli, write_suite, entry, message):
    valid = "{impl: threshold, params: {t: 0.1}, dataset_params: {hard: {t: 0.3}}}"
    path = write_suite(DATASET_PARAMS_SUITE.replace(valid, entry))
    code, _, err = cli("plan", str(path))
    assert code == 3, err
    assert f"{path}:7:" in err and message in err


REPORT_SUITE = """\
schema_version: 1
suite: toy
task: toy.sign
datasets: {{easy: {{loader: numbers}}}}
metrics: [accuracy]
methods:
  thr: {{impl: threshold, params: {{t: [0.0, 0.5]}}}}
  other: {{impl: threshold}}
{extra}
"""


@pytest.mark.parametrize("extra, message", [
    ("report: {measures: [samples], tradeoffs: [{x: samples, y: f1}]}", "'f1' is neither a metric of this suite"),
    ("claims: [{text: t, check: {metric: accuracy, better: thr, than: other, at_matched: f1}}]",
     "metric 'f1' is not in this suite's metrics"),
    ("claims: [{text: t, check: {metric: accuracy, best: thr, at_matched: accuracy}}]",
     "'at_matched' compares 'better' with 'than'"),
    ("references: [{method: thr, dataset: x, metric: wall, value: 1.0, source: s}]",
     "neither in this suite's metrics nor in its report measures"),
    ("claims: [{text: t, check: {metric: accuracy, better: 'thx[t=0.5]', than: other}}]",
     "'thx[t=0.5]' is not a method of this suite"),
    ("claims: [{text: t, check: {metric: accuracy, better: thr, than: other}}]",
     "'thr' has 2 grid variants; a claim compares one"),
    ("claims: [{text: t, check: {metric: accuracy, better: thr, than: other, select_by: accuracy}}]",
     "own metric"),
    ("report: {cells: {f1: auto}}", "metric 'f1' is not in this suite's metrics"),
    ("claims: [{text: t, check: {metric: accuracy, better: thr, than: other, select_by: samples}}]",
     "'samples' is not in the report's measures"),
    ("report: {cells: {accuracy: '{mean:.1f} ± {spread}'}}", "cell template"),
    ("references: [{method: thr, dataset: x, metric: accuracy, value: 54, std: 1, range: [53, 55], source: s}]",
     "give one of std, ci95 and range, not std and range"),
    ("references: [{method: thr, dataset: x, metric: accuracy, value: 50, range: [53, 55], source: s}]",
     "value 50.0 lies outside its range [53.0, 55.0]"),
    ("report: {notes: 'one note, not a list'}", "report.notes"),
])
def test_bad_tradeoffs_matched_claims_and_references_name_the_problem(cli, write_suite, extra, message):
    code, _, err = cli("validate", str(write_suite(REPORT_SUITE.format(extra=extra))))
    assert code == 3
    assert message in err and "Traceback" not in err


def test_tradeoffs_matched_claims_and_cited_measures_validate(cli, write_suite):
    extra = ("report: {measures: [samples], tradeoffs: [{x: samples, y: accuracy}]}\n"
             "claims: [{text: t, check: {metric: accuracy, better: thr, than: other, at_matched: accuracy}},\n"
             "         {text: one variant, check: {metric: accuracy, better: 'thr[t=0.5]', than: other}}]\n"
             "references: [{method: thr, dataset: paper, metric: samples, value: 10.0, source: 'Doe, Table 1'}]")
    code, _, err = cli("validate", str(write_suite(REPORT_SUITE.format(extra=extra))))
    assert code == 0, err
    notes = REPORT_SUITE.format(extra="report: {notes: [CPU reference kernel, 'densities 0.7-0.8']}")
    code, _, err = cli("validate", str(write_suite(notes)))
    assert code == 0, err


@pytest.mark.parametrize(("seeds", "datasets", "warned"), [("[0, 1, 2]", 1, True), ("[0, 1, 2, 3, 4]", 1, False),
                                                          ("[0, 1, 2, 3, 4, 5]", 4, True)])
def test_validate_warns_when_the_seeds_make_a_claim_undecidable(cli, write_suite, seeds, datasets, warned):
    names = ", ".join(f"d{i}: {{loader: numbers}}" for i in range(datasets))
    text = REPORT_SUITE.format(extra="claims: [{text: thr wins, check: {metric: accuracy, better: 'thr[t=0.5]', "
                                     "than: other}}]").replace("datasets: {easy: {loader: numbers}}",
                                                                f"defaults: {{seeds: {seeds}}}\ndatasets: {{{names}}}")
    code, _, err = cli("validate", str(write_suite(text)))
    assert code == 0, err
    assert ("claim 'thr wins' is undecidable" in err) == warned
    assert not warned or "Run at least" in err


def test_a_claim_may_pick_a_grid_variant_by_a_reported_validation_figure(cli, write_suite):
    extra = ("report: {measures: [samples]}\n"
             "claims: [{text: t, check: {metric: accuracy, better: thr, than: other, select_by: samples}}]")
    code, _, err = cli("validate", str(write_suite(REPORT_SUITE.format(extra=extra))))
    assert code == 0, err


@pytest.mark.parametrize(("effect", "warned"), [(0.5, True), (2.0, False)])
def test_validate_says_how_many_seeds_a_stated_effect_needs(cli, write_suite, effect, warned):
    """An effect of 0.5 standard deviations needs 28 seeds for power 0.8 (one-sided signed-rank, alpha 0.05);
    2 standard deviations need 5, fewer than the suite's 6."""
    claims = f"claims: [{{text: thr wins, check: {{metric: accuracy, better: 'thr[t=0.5]', than: other, " \
             f"effect_size: {effect}}}}}]"
    six_seeds = "defaults: {seeds: [0, 1, 2, 3, 4, 5]}\ndatasets: {easy: {loader: numbers}}"
    text = REPORT_SUITE.format(extra=claims).replace("datasets: {easy: {loader: numbers}}", six_seeds)
    code, _, err = cli("validate", str(write_suite(text)))
    assert code == 0, err
    assert ("claim 'thr wins' states an effect of 0.5 standard deviations: 6 seeds detect it with power below 0.8"
            in err) == warned
    assert not warned or "Run at least 28 seeds." in err
