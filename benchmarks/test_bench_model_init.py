"""The model_init family's hot paths at the suites' sizes: one step of MASA's gene extraction (a 2-layer group of
the 192 x 768 source FFNs, rank 128, output + spectral alignment on 512 calibration tokens) and the SVD reshaping
of one gene FFN into the d = 128, 512-neuron student. Times go to the benchmark record; nothing is asserted
about them."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from methods.model_init.genes import FFN, learn_genes, reshape_ffn  # noqa: E402
from methods.model_init.inherit import evenly  # noqa: E402

HIDDEN, NEURONS, TOKENS = 192, 768, 512


def _layers(count: int) -> tuple[list[FFN], list[torch.Tensor]]:
    gen = torch.Generator().manual_seed(0)
    ffns = [FFN(*(torch.randn(*shape, generator=gen) * 0.05
                  for shape in ((NEURONS, HIDDEN), (NEURONS, HIDDEN), (HIDDEN, NEURONS)))) for _ in range(count)]
    return ffns, [torch.randn(TOKENS, HIDDEN, generator=gen) for _ in range(count)]


def test_gene_extraction_step(benchmark):
    torch.set_num_threads(1)
    ffns, inputs = _layers(2)
    benchmark.pedantic(learn_genes, args=(ffns, inputs, 1, 128, 1.0, 1.0, 16, 1, 1e-3), rounds=3, iterations=1,
                       warmup_rounds=1)


def test_svd_reshaping_into_the_student(benchmark):
    torch.set_num_threads(1)
    (gene,), _ = _layers(1)
    student = benchmark.pedantic(reshape_ffn, args=(gene, evenly(HIDDEN, 128), evenly(NEURONS, 512), 128), rounds=5,
                                 iterations=1, warmup_rounds=1)
    assert student.gate.shape == (512, 128) and student.down.shape == (128, 512)
