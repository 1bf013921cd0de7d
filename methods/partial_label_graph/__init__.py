"""Partial-label graph classification (PRISM, ICLR 2026) on TU benchmarks: registrations only."""
from harness.registry import datasets, methods, metrics, tasks

tasks.add(
    "partial_label_graph.classification", "methods.partial_label_graph.task:PartialLabelClassification",
    "graph classification from candidate label sets (uniform noise q); test accuracy on true labels (PRISM, ICLR 2026)",
)
datasets.add(
    "partial_label_graph.tu_npz", "methods.partial_label_graph.tu_npz:load_tu_npz",
    "a TU graph-classification set in the project's npz form (edge_index, graph_ptr, x, y; shared/data/tu)",
)
datasets.add(
    "partial_label_graph.tu_raw", "methods.partial_label_graph.tu_raw:load_tu_raw",
    "a TU graph-classification set as the TU collection ships it: a folder or zip of DS_A.txt, "
    "DS_graph_indicator.txt, DS_graph_labels.txt, ...",
)
datasets.add(
    "partial_label_graph.motifs", "methods.partial_label_graph.motifs:motif_graphs",
    "generated graphs: random trees with one planted motif per class (triangle, square, house, k4, ...)",
)
metrics.add("partial_label_graph.accuracy", "methods.partial_label_graph.metrics:ACCURACY", "test accuracy, %")
metrics.add(
    "partial_label_graph.train_accuracy", "methods.partial_label_graph.metrics:TRAIN_ACCURACY",
    "accuracy on the training graphs' hidden true labels: how well the candidates were disambiguated, %",
)

T = "partial_label_graph.classification"
_B = "methods.partial_label_graph.baselines"
_P = "methods.partial_label_graph.params"  # parameter models, torch-free: validating a suite reads only them
methods.add(
    "partial_label_graph.supervised", f"{_B}.supervised:SupervisedReference",
    "reference, not a ceiling: the same GIN with cross-entropy on the true training labels", task=T,
    params=f"{_P}:GINParams",
)
methods.add(
    "partial_label_graph.cc", f"{_B}.cc:CCLoss",
    "CC (Feng et al., NeurIPS 2020): -log of the probability on the candidate set, GIN encoder", task=T,
    params=f"{_P}:GINParams",
)
methods.add(
    "partial_label_graph.proden", f"{_B}.proden:PRODEN",
    "PRODEN / RC (Lv et al., ICML 2020; Feng et al., NeurIPS 2020): confidence-weighted cross-entropy, "
    "confidences re-estimated from the model, GIN encoder", task=T,
    params=f"{_P}:GINParams",
)
methods.add(
    "partial_label_graph.lws", f"{_B}.lws:LWS",
    "LWS (Wen et al., ICML 2021): leveraged weighted sigmoid loss on candidates and non-candidates, GIN encoder",
    task=T, params=f"{_P}:LWSParams",
)
methods.add(
    "partial_label_graph.prism", "methods.partial_label_graph.prism:PRISM",
    "PRISM (ICLR 2026): prototype substructures + multi-band spectral attention, top-k relational graphs over "
    "overlapping candidates, candidate-projected label propagation; inferred details are parameters", task=T,
    params=f"{_P}:PRISMParams",
)
methods.add(
    "partial_label_graph.pico", f"{_B}.pico:PiCO",
    "PiCO (Wang et al., ICLR 2022) adapted to graphs: MoCo-style contrast over augmented views, "
    "prototype-based label disambiguation, GIN encoder", task=T, params=f"{_P}:PiCOParams",
)
methods.add(
    "partial_label_graph.graphcl", f"{_B}.graphcl:GraphCL",
    "GraphCL (You et al., NeurIPS 2020) pre-training of the GIN encoder, then PRODEN partial-label fine-tuning",
    task=T, params=f"{_P}:GraphCLParams",
)
