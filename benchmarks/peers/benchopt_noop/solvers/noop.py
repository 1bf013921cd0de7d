from benchopt import BaseSolver


class Solver(BaseSolver):
    name = "noop"
    sampling_strategy = "run_once"
    parameters = {"t": [i / 10 for i in range(10)]}

    def set_objective(self, values):
        self.values = values

    def run(self, _):
        pass

    def get_result(self):
        return dict(threshold=self.t)
