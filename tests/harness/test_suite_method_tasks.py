"""A method registered with `task=(A, B)` serves suites of either task and is refused by any other."""
from __future__ import annotations

import textwrap

import pytest

PLUGIN = """\
from harness import Instance, Method, Metric, Task, datasets, methods, metrics, tasks


class Echo(Task):
    def instance(self, data, split, seed):
        return Instance(inputs=data, truth=data)

    def predictions(self, instance, output):
        import pandas as pd

        return pd.DataFrame({"value": list(output)})

    def score(self, instance, predictions, metric_objects):
        return {key: metric(predictions["value"]) for key, metric in metric_objects.items()}


class Identity(Method):
    def run(self, inputs, ctx):
        return inputs


for _task in ("duo.first", "duo.second", "duo.third"):
    tasks.add(_task, Echo, "a task of the two-task family")
datasets.add("duo.numbers", lambda: [1, 2, 3], "three numbers")
metrics.add("duo.count", Metric("count", len, higher_is_better=True), "how many")
methods.add("duo.both", Identity, "serves the first and the second task", task=("duo.first", "duo.second"))
methods.add("duo.first_only", Identity, "serves the first task", task="duo.first")
"""


@pytest.fixture(scope="module")
def duo_plugin(tmp_path_factory) -> str:
    """One file for the module: the registries are global, so the plugin must be loaded from one path only."""
    path = tmp_path_factory.mktemp("duo") / "duo_family.py"
    path.write_text(PLUGIN)
    return str(path)


def _suite(tmp_path, task: str, impl: str):
    path = tmp_path / f"{task}-{impl}.yaml"
    path.write_text(textwrap.dedent(f"""\
        schema_version: 1
        suite: duo
        task: {task}
        datasets: {{nums: {{loader: numbers}}}}
        metrics: [count]
        methods:
          m: {{impl: {impl}}}
        """))
    return path


@pytest.mark.parametrize("task", ["duo.first", "duo.second"])
def test_method_serving_two_tasks_validates_in_a_suite_of_either(cli, tmp_path, duo_plugin, task):
    suite = _suite(tmp_path, task, "both")
    code, out, err = cli("validate", str(suite), "--plugin", duo_plugin)
    assert code == 0, err
    assert "1 method variants" in out
    code, out, err = cli("run", str(suite), "--plugin", duo_plugin, "--store", str(tmp_path / "s.sqlite"),
                         "--executor", "inline")
    assert code == 0, err  # and it runs there: the echoed numbers are scored


def test_method_serving_two_tasks_is_refused_by_a_third_naming_both(cli, tmp_path, duo_plugin):
    path = _suite(tmp_path, "duo.third", "both")
    code, _, err = cli("validate", str(path), "--plugin", duo_plugin)
    assert code == 3
    assert f"{path}:7:" in err
    assert "solves task 'duo.first' and 'duo.second', not 'duo.third'" in err


def test_method_serving_one_task_is_still_refused_by_another(cli, tmp_path, duo_plugin):
    code, _, err = cli("validate", str(_suite(tmp_path, "duo.second", "first_only")), "--plugin", duo_plugin)
    assert code == 3
    assert "solves task 'duo.first', not 'duo.second'" in err
