"""Your model's recorded outputs (a dataset's `outputs_path`, read by `byo`), replayed as a method so they are
scored, tabulated and compared like every method's. A task the file does not answer scores invalid."""
from __future__ import annotations

from harness import Method, RunContext
from methods.molecule_opt.task import Answers, OptInputs


class RecordedOutputs(Method):
    def run(self, inputs: OptInputs, ctx: RunContext) -> Answers:
        recorded = inputs.source.recorded
        if recorded is None:
            raise ValueError("the dataset has no recorded outputs: give its loader outputs_path: <your JSONL>")
        return {task.id: recorded.by_task.get(task.id, "") for task in inputs.tasks}
