from benchopt import BaseDataset


class Dataset(BaseDataset):
    name = "noop"
    parameters = {"shift": [i / 10 for i in range(10)]}

    def get_data(self):
        return dict(values=[self.shift + i / 100 for i in range(100)])
