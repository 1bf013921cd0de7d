"""The published configs of the models QZO fine-tunes, written into the repo so memory accounting runs offline.

Each dict copies the architecture fields of the model card's `config.json` on the Hugging Face hub (sources
named per entry). Only fields that shape parameters or position handling are copied; tokenizer ids and
dtypes are kept because they are part of the published file and cost nothing. The paper's 4-bit runs use
GPTQ checkpoints of these same architectures (spec "Setup"), so the shapes are the 16-bit models' shapes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transformers import PretrainedConfig

# facebook/opt-6.7b, config.json on the model card (OPTConfig; `tie_word_embeddings` is not in the file and
# takes PretrainedConfig's default, true: OPT's lm_head shares the token embedding).
OPT_6_7B: dict[str, Any] = {
    "model_type": "opt",
    "architectures": ["OPTForCausalLM"],
    "activation_function": "relu",
    "hidden_size": 4096,
    "ffn_dim": 16384,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "vocab_size": 50272,
    "max_position_embeddings": 2048,
    "word_embed_proj_dim": 4096,
    "do_layer_norm_before": True,
    "enable_bias": True,
    "tie_word_embeddings": True,
    "bos_token_id": 2,
    "eos_token_id": 2,
    "pad_token_id": 1,
    "torch_dtype": "float16",
}

# meta-llama/Llama-2-7b-hf, config.json on the model card.
LLAMA_2_7B: dict[str, Any] = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "tie_word_embeddings": False,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "torch_dtype": "float16",
}

# meta-llama/Llama-2-13b-hf, config.json on the model card (the AQLM 2-bit run of Table 3 quantizes it).
LLAMA_2_13B: dict[str, Any] = {
    **LLAMA_2_7B,
    "hidden_size": 5120,
    "intermediate_size": 13824,
    "num_hidden_layers": 40,
    "num_attention_heads": 40,
    "num_key_value_heads": 40,
}

# meta-llama/Llama-3.1-8B, config.json on the model card (grouped-query attention: 8 key/value heads).
LLAMA_3_1_8B: dict[str, Any] = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "attention_bias": False,
    "mlp_bias": False,
    "tie_word_embeddings": False,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "torch_dtype": "bfloat16",
}

MODEL_CONFIGS: dict[str, dict[str, Any]] = {
    "opt-6.7b": OPT_6_7B,
    "llama-2-7b": LLAMA_2_7B,
    "llama-2-13b": LLAMA_2_13B,
    "llama-3.1-8b": LLAMA_3_1_8B,
}


def config(name: str) -> PretrainedConfig:
    """The model's `PretrainedConfig`, built from the dict above; no hub access, so tests and CI run offline."""
    if name not in MODEL_CONFIGS:
        raise ValueError(f"unknown model config {name!r}; known: {', '.join(sorted(MODEL_CONFIGS))}")
    from transformers import AutoConfig

    fields = dict(MODEL_CONFIGS[name])
    return AutoConfig.for_model(fields.pop("model_type"), **fields)
