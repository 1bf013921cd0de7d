"""Block-sparse prefill attention (ProxyAttn, ICLR 2026, against its baselines): registrations only."""
from harness.registry import datasets, methods, metrics, tasks

T = "sparse_attention.prefill"
L = "sparse_attention.long_context"
BOTH = (T, L)  # every method serves both: masks for one layer, or a model's whole prefill
tasks.add(
    T, "methods.sparse_attention.task:PrefillAttention",
    "one layer's causal GQA prefill attention; a method returns block masks, scored against exact attention "
    "(density, attention-mass recall, output error)",
)
tasks.add(
    L, "methods.sparse_attention.long_context:LongContextAccuracy",
    "RULER-style prompts answered by a model whose prefill attention is the method (decode stays dense); "
    "RULER Avg/wAvg, per-length and per-task accuracy, prefill density",
)
datasets.add(
    "sparse_attention.model_capture", "methods.sparse_attention.model_capture:model_capture",
    "Q/K/V of a model's prefill of RULER prompts (the tiny Llama, or model: {path: DIR}), every layer; "
    "seed i reads prompt i",
)
datasets.add(
    "sparse_attention.ruler_tiny", "methods.sparse_attention.long_context:ruler_tiny",
    "RULER tasks (niah_single, niah_multikey, kv_retrieval, variable_tracking) at given lengths, with the model "
    "answering them: the family's tiny Llama (tiny_model.prepare arguments) or model: {path: DIR}",
)
datasets.add(
    "sparse_attention.structured", "methods.sparse_attention.data:structured",
    "planted long-context attention patterns: sink, local window, slash and vertical lines, retrieval spans, "
    "diffuse distractor blocks; heads share positions and differ in temperature",
)
datasets.add(
    "sparse_attention.neutral", "methods.sparse_attention.data:neutral",
    "neutral attention patterns: smooth random content (keys per KV head, queries drawn per query head), "
    "per-head sharpness and recency bias; no sink, lines, distractor blocks or positions shared by heads",
)
datasets.add(
    "sparse_attention.captured", "methods.sparse_attention.data:load_captured",
    "Q/K/V captured from a model's prefill (.npz: q [P, L, Hq, N, d], k, v [P, L, Hkv, N, d]); seed i reads prompt i",
)
_FIDELITY, _ACCURACY = "methods.sparse_attention.metrics", "methods.sparse_attention.long_context_metrics"
for _module, _name, _text in (
    (_FIDELITY, "density", "fraction of the causal (query, key) pairs the mask computes"),
    (_FIDELITY, "block_density", "fraction of the causal key blocks the mask keeps (a diagonal block counts whole)"),
    (_FIDELITY, "sparsity", "1 - density (ProxyAttn's RULER table reports sparsity)"),
    (_FIDELITY, "recall_mean", "exact attention mass inside the selected blocks, mean over heads and query rows"),
    (_FIDELITY, "recall_p1", "1st percentile over heads and query rows of the captured attention mass"),
    (_FIDELITY, "recall_min", "the worst (head, query row)'s captured attention mass"),
    (_FIDELITY, "output_rel_error", "||O_sparse - O_dense||_F / ||O_dense||_F, mean over cases"),
    (_ACCURACY, "ruler_avg",
     "RULER Avg: mean over context lengths of the per-length accuracy (string_match_all), x100"),
    (_ACCURACY, "ruler_wavg", "RULER wAvg (increasing): lengths weighted 1..L from shortest to longest, x100"),
    (_ACCURACY, "prefill_density",
     "mean over samples of the prefill's density (causal pairs computed), all layers and heads"),
    (_ACCURACY, "prefill_sparsity", "1 - prefill_density: the sparsity column of ProxyAttn's RULER table"),
    *((_ACCURACY, f"ruler_acc_{_n}", f"accuracy (string_match_all) at {_n} tokens, x100; NaN when absent")
      for _n in ("512", "768", "1k", "2k", "4k", "8k")),
    *((_ACCURACY, f"ruler_{_t}", f"accuracy on RULER's {_t}, mean over lengths, x100")
      for _t in ("niah_single", "niah_multikey", "kv_retrieval", "variable_tracking")),
):
    metrics.add(f"sparse_attention.{_name}", f"{_module}:{_name.upper()}", _text)

_P = "methods.sparse_attention.params"  # parameter models, torch-free: validating a suite reads only them
methods.add("sparse_attention.dense", "methods.sparse_attention.dense:DenseAttention",
            "dense causal attention (torch SDPA): the reference", task=BOTH, params="harness:MethodParams")
methods.add("sparse_attention.oracle", "methods.sparse_attention.oracle:OracleTopK",
            "fewest blocks covering gamma of each query block's exact attention mass: the upper bound", task=BOTH,
            params=f"{_P}:OracleParams")
methods.add("sparse_attention.proxyattn", "methods.sparse_attention.proxyattn:ProxyAttn",
            "ProxyAttn (Wang et al., ICLR 2026): pooled proxy-head token scores, per-head dynamic budgets", task=BOTH,
            params=f"{_P}:ProxyAttnParams")
methods.add("sparse_attention.flexprefill", "methods.sparse_attention.baselines.flexprefill:FlexPrefill",
            "FlexPrefill (Lai et al., ICLR 2025): per head query-aware or vertical-slash blocks by a sqrt-JS test",
            task=BOTH, params=f"{_P}:FlexPrefillParams")
methods.add("sparse_attention.xattention", "methods.sparse_attention.baselines.xattention:XAttention",
            "XAttention (Xu et al., ICML 2025): antidiagonal block scores, per-row threshold", task=BOTH,
            params=f"{_P}:XAttentionParams")
methods.add("sparse_attention.minference", "methods.sparse_attention.baselines.minference:MInference",
            "MInference's vertical-slash pattern (Jiang et al., NeurIPS 2024) from the last 64 queries, as blocks",
            task=BOTH, params=f"{_P}:MInferenceParams")
methods.add("sparse_attention.fixed_density", "methods.sparse_attention.baselines.fixed_density:FixedDensity",
            "random causal blocks at a fixed density (block 0 and the diagonal kept): the no-estimation control",
            task=BOTH, params=f"{_P}:FixedDensityParams")
