"""Graph anomaly detection (APF, ICLR 2026) under GADBench's protocol: registrations only."""
from harness.registry import datasets, methods, metrics, tasks

tasks.add(
    "graph_anomaly.node_scoring", "methods.graph_anomaly.task:NodeScoring",
    "score every node of a graph; AUROC/AUPRC/Rec@K on test nodes (GADBench, Tang et al., NeurIPS 2023)",
)
datasets.add(
    "graph_anomaly.npz", "methods.graph_anomaly.data:load_npz",
    "attributed graph with 0/1 anomaly labels from a plain .npz (x, edge_index, y), e.g. Reddit, Tolokers",
)
datasets.add(
    "graph_anomaly.injected_sbm", "methods.graph_anomaly.data:injected_sbm",
    "stochastic block model with PyGOD's contextual and structural outliers injected (BOND, Liu et al., NeurIPS 2022)",
)
datasets.add(
    "graph_anomaly.injected_npz", "methods.graph_anomaly.data:load_injected",
    "multi-class attributed graph from a plain .npz (e.g. Cora) with PyGOD's contextual and structural outliers "
    "injected; defaults match inj_cora (BOND, Liu et al., NeurIPS 2022)",
)
datasets.add(
    "graph_anomaly.gadbench", "methods.graph_anomaly.gadbench:load_gadbench",
    "a GADBench dataset file as shipped, DGL's save_graphs format read without DGL (Tang et al., NeurIPS 2023)",
)
metrics.add("graph_anomaly.auroc", "methods.graph_anomaly.metrics:AUROC", "area under the ROC curve, test nodes, x100")
metrics.add("graph_anomaly.auprc", "methods.graph_anomaly.metrics:AUPRC", "average precision on test nodes, x100")
metrics.add(
    "graph_anomaly.rec_at_k", "methods.graph_anomaly.metrics:REC_AT_K",
    "recall among the K top-scored test nodes, K = number of test anomalies (GADBench), x100",
)
for _bin in ("h00_20", "h20_40", "h40_60", "h60_80", "h80_100"):
    metrics.add(
        f"graph_anomaly.auprc_{_bin}", f"methods.graph_anomaly.metrics:AUPRC_{_bin.upper()}",
        f"AUPRC on the test nodes whose local homophily lies in bin {_bin} (per cent), x100: APF's per-group analysis",
    )

T = "graph_anomaly.node_scoring"
_P = "methods.graph_anomaly.params"  # parameter models, torch-free: validating a suite reads only them
methods.add(
    "graph_anomaly.logreg", "methods.graph_anomaly.baselines.logreg:LogisticRegressionDetector",
    "logistic regression on node features alone (scikit-learn), class-weighted: the graph-free floor", task=T,
    params=f"{_P}:LogisticRegressionParams",
)
methods.add(
    "graph_anomaly.mlp", "methods.graph_anomaly.baselines.mlp:MLPDetector",
    "MLP on node features (GADBench's MLP, Tang et al., NeurIPS 2023), class-weighted, selected on validation AUPRC",
    task=T, params=f"{_P}:LayeredParams",
)
methods.add(
    "graph_anomaly.gcn", "methods.graph_anomaly.baselines.gcn:GCNDetector",
    "GCN (Kipf & Welling, ICLR 2017), class-weighted, selected on validation AUPRC", task=T,
    params=f"{_P}:LayeredParams",
)
methods.add(
    "graph_anomaly.graphsage", "methods.graph_anomaly.baselines.graphsage:GraphSAGEDetector",
    "GraphSAGE (Hamilton et al., NeurIPS 2017), class-weighted, selected on validation AUPRC", task=T,
    params=f"{_P}:GraphSAGEParams",
)
methods.add(
    "graph_anomaly.rayleigh", "methods.graph_anomaly.baselines.rayleigh:RayleighQuotientScore",
    "training-free score: each node's local Rayleigh quotient of the features, the high-frequency energy "
    "that anomalies raise (BWGNN, Tang et al., ICML 2022)", task=T,
    params=f"{_P}:RayleighParams",
)
methods.add(
    "graph_anomaly.dgi_probe", "methods.graph_anomaly.baselines.dgi_probe:DGIProbeDetector",
    "DGI pre-training (Veličković et al., ICLR 2019) + linear/MLP probe, per Pretrain-GAD (Cheng et al., "
    "arXiv 2410.18487), probe selected on validation AUPRC (never test)", task=T,
    params=f"{_P}:DGIProbeParams",
)
methods.add(
    "graph_anomaly.rfgraph", "methods.graph_anomaly.baselines.tree_graph:RFGraphDetector",
    "random forest on features + neighbour aggregations (GADBench's RFGraph, Tang et al., NeurIPS 2023), "
    "class-weighted, max_features selected on validation AUPRC", task=T,
    params=f"{_P}:RFGraphParams",
)
methods.add(
    "graph_anomaly.xgbgraph", "methods.graph_anomaly.baselines.tree_graph:XGBGraphDetector",
    "XGBoost on features + neighbour aggregations (GADBench's XGBGraph, Tang et al., NeurIPS 2023), "
    "class-weighted, boosting rounds selected on validation AUPRC", task=T,
    params=f"{_P}:XGBGraphParams",
)
methods.add(
    "graph_anomaly.gat", "methods.graph_anomaly.baselines.gat:GATDetector",
    "GAT (Veličković et al., ICLR 2018), 4 concatenated heads, class-weighted, selected on validation AUPRC", task=T,
    params=f"{_P}:GATParams",
)
methods.add(
    "graph_anomaly.bwgnn", "methods.graph_anomaly.baselines.bwgnn:BWGNNDetector",
    "BWGNN (Tang et al., ICML 2022): Beta-wavelet band-pass filters, homogeneous, GADBench configuration", task=T,
    params=f"{_P}:SpectralParams",
)
methods.add(
    "graph_anomaly.bernnet", "methods.graph_anomaly.baselines.bernnet:BernNetDetector",
    "BernNet (He et al., NeurIPS 2021): learnable non-negative Bernstein polynomial filter, K = 2 as in GADBench",
    task=T, params=f"{_P}:SpectralParams",
)
methods.add(
    "graph_anomaly.amnet", "methods.graph_anomaly.baselines.amnet:AMNetDetector",
    "AMNet (Chai et al., IJCAI 2022): node-level attention over a low-pass and a high-pass Bernstein filter", task=T,
    params=f"{_P}:SpectralParams",
)
methods.add(
    "graph_anomaly.ghrn", "methods.graph_anomaly.baselines.ghrn:GHRNDetector",
    "GHRN (Gao et al., WWW 2023): BWGNN on the graph pruned of its most heterophilous edges by predicted-label "
    "high-frequency signal", task=T,
    params=f"{_P}:GHRNParams",
)
methods.add(
    "graph_anomaly.chebnetii", "methods.graph_anomaly.baselines.chebnetii:ChebNetIIDetector",
    "ChebNetII (He et al., NeurIPS 2022): MLP then a learnable Chebyshev-interpolation filter, "
    "class-weighted, selected on validation AUPRC", task=T,
    params=f"{_P}:ChebNetIIParams",
)
methods.add(
    "graph_anomaly.apf", "methods.graph_anomaly.apf:APFDetector",
    "APF (Liu et al., ICLR 2026): dual monotone Chebyshev filters, MRQ-guided DGI pre-training, "
    "gated fine-tuning with a homophily regulariser; selected on validation AUROC", task=T,
    params=f"{_P}:APFParams",
)
