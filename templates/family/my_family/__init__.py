"""My family: the problem in one line (MyMethod, ICLR 2026): registrations only.

Targets are lazy `module:attr` strings, imported only when a run needs them, so `harness ls` and
`harness validate` stay fast. Names are global: prefix every one with the family's name.
"""
from harness.registry import datasets, methods, metrics, tasks

T = "my_family.point_scoring"
tasks.add(T, "methods.my_family.task:PointScoring",
          "score test points for the positive class from labelled training points; AUROC on the test points")
datasets.add("my_family.points_csv", "methods.my_family.data:load_points_csv",
             "a CSV of labelled points (your own file): numeric feature columns and a 0/1 label column")
datasets.add("my_family.gaussian_blobs", "methods.my_family.data:gaussian_blobs",
             "generated: two unit-variance Gaussians `separation` apart, half the points positive")
metrics.add("my_family.auroc", "methods.my_family.metrics:AUROC", "area under the ROC curve, x100")
# Each method names its parameter model (torch-free: validating a suite imports only it); one without
# parameters names the empty harness:MethodParams.
methods.add("my_family.my_method", "methods.my_family.my_method:MyMethod",
            "MyMethod (ICLR 2026); the starter's is nearest-centroid scoring", task=T,
            params="methods.my_family.params:MyMethodParams")
methods.add("my_family.random_scores", "methods.my_family.baselines.random_scores:RandomScores",
            "chance level: uniform random scores seeded by the run's seed", task=T, params="harness:MethodParams")
