"""Small attention cases the family's tests share."""
from __future__ import annotations

import pytest
import torch

from methods.sparse_attention.problem import AttentionCase


def random_case(seq_len: int = 200, q_heads: int = 4, kv_heads: int = 2, head_dim: int = 16, seed: int = 0,
                sharpness: float = 1.0, name: str = "case") -> AttentionCase:
    gen = torch.Generator().manual_seed(seed)
    q = sharpness * torch.randn(q_heads, seq_len, head_dim, generator=gen)
    k = torch.randn(kv_heads, seq_len, head_dim, generator=gen)
    v = torch.randn(kv_heads, seq_len, head_dim, generator=gen)
    return AttentionCase(name, q, k, v)


@pytest.fixture
def case() -> AttentionCase:
    return random_case()


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models' matmuls run 100x slower when torch's threads outnumber the free cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def random_model_dir(tmp_path_factory):
    """A random-init tiny Llama over the family's word-level vocabulary, saved as a Hugging Face folder."""
    transformers = pytest.importorskip("transformers")
    from methods.sparse_attention import tiny_model

    tokenizer = tiny_model.build_tokenizer()
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=1024, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    path = tmp_path_factory.mktemp("tiny-random-llama")
    transformers.LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
