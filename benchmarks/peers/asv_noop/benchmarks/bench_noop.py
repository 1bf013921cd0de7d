"""The no-op grid for asv: 10 datasets x 10 variants, 3 samples each (asv's repeats stand for the seeds)."""


class Noop:
    params = ([i / 10 for i in range(10)], [i / 10 for i in range(10)])
    param_names = ["shift", "t"]
    number = 1
    repeat = 3
    rounds = 1
    warmup_time = 0

    def setup(self, shift, t):
        self.values = [shift + i / 100 for i in range(100)]

    def time_noop(self, shift, t):
        sum(v > t for v in self.values)


class NoopOne(Noop):
    """One dataset and one variant: the 3-run subset."""

    params = ([0.0], [0.0])
