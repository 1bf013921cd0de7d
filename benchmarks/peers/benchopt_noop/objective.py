"""The no-op grid's objective for benchopt: the same figure the harness's toy method returns, nothing to fit."""
from benchopt import BaseObjective


class Objective(BaseObjective):
    name = "noop"
    min_benchopt_version = "1.10"

    def set_data(self, values):
        self.values = values

    def get_objective(self):
        return dict(values=self.values)

    def evaluate_result(self, threshold):
        return dict(value=float(sum(v > threshold for v in self.values)) / len(self.values))

    def get_one_result(self):
        return dict(threshold=0.0)
