"""The family through the CLI: the committed suites validate, a small suite on a saved model runs and
reports, and a user's bad JSONL file is a user error (exit 3, no traceback)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

from harness.cli import main  # noqa: E402
from harness.errors import USER_ERROR_EXIT  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SUITES = sorted(p.name for p in (REPO / "suites").glob("zo_*.yaml"))


@pytest.mark.parametrize("name", SUITES)
def test_committed_suites_validate(name, capsys):
    assert main(["validate", str(REPO / "suites" / name)]) == 0


def small_suite(tmp_path: Path, folder: Path, dataset: str) -> Path:
    suite = tmp_path / "zo_small.yaml"
    suite.write_text(textwrap.dedent(f"""\
        schema_version: 1
        suite: zo_small
        task: zo_finetune.classification
        defaults: {{seeds: [0, 1], threads: 1, timeout: 5m}}
        datasets:
          sst2: {dataset}
        metrics: [accuracy]
        methods:
          zero_shot_q: {{impl: zero_shot, params: {{quantized: true}}}}
          qzo: {{impl: qzo, params: {{learning_rate: 1.0e-4, steps: 4, eval_steps: 2, clip: [5.0, null]}}}}
        claims:
          - {{text: "QZO at least Zero-Shot-Q", check: {{metric: accuracy, better: qzo, than: zero_shot_q}}}}
        report: {{metric: accuracy, measures: [first_nan_step, step_ms]}}
        """))
    return suite


@pytest.fixture
def saved_model(tmp_path, tiny_model, tokenizer):
    tiny_model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    return tmp_path / "model"


@pytest.mark.slow
def test_small_suite_runs_and_reports(tmp_path, saved_model, capsys):
    dataset = (f"{{loader: prompt_task, args: {{task: sst2, train: 32, dev: 16, test: 16, "
               f"model: {{path: '{saved_model}'}}}}}}")
    suite, store = small_suite(tmp_path, saved_model, dataset), tmp_path / "results.sqlite"
    assert main(["run", str(suite), "--store", str(store)]) == 0
    assert main(["report", str(suite), "--store", str(store), "--out", str(tmp_path / "report"), "--format", "md"]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "qzo\\[clip=5.0\\]" in report and "qzo\\[clip=None\\]" in report and "step\\_ms" in report


def test_bad_jsonl_is_a_user_error(tmp_path, saved_model, capsys):
    bad = tmp_path / "train.jsonl"
    bad.write_text(json.dumps({"sentence": "fine", "label": 1}) + "\n{broken\n")
    dataset = (f"{{loader: jsonl, args: {{task: sst2, train: '{bad}', dev: '{bad}', test: '{bad}', "
               f"model: {{path: '{saved_model}'}}}}}}")
    code = main(["run", str(small_suite(tmp_path, saved_model, dataset)), "--store", str(tmp_path / "r.sqlite")])
    captured = capsys.readouterr()
    assert code == USER_ERROR_EXIT
    assert "train.jsonl:2: not valid JSON" in captured.err and "Traceback" not in captured.err


def test_unknown_task_is_a_user_error(tmp_path, saved_model, capsys):
    dataset = f"{{loader: prompt_task, args: {{task: mnli, model: {{path: '{saved_model}'}}}}}}"
    code = main(["run", str(small_suite(tmp_path, saved_model, dataset)), "--store", str(tmp_path / "r.sqlite")])
    assert code == USER_ERROR_EXIT and "unknown task 'mnli'" in capsys.readouterr().err


def test_memory_breakdown_figure_reads_the_committed_runs(tmp_path):
    from methods.zo_finetune.figures import memory_breakdown_plot

    out = memory_breakdown_plot(REPO / "reports" / "zo_memory" / "runs.csv", tmp_path / "fig.png")
    assert out.stat().st_size > 10_000
    with pytest.raises(ValueError, match="lacks metric.analytic_weights_gb"):
        memory_breakdown_plot(REPO / "reports" / "quickstart" / "runs.csv", tmp_path / "bad.png")
