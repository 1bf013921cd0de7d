"""The hardware fingerprint tells apart machines whose CPU kernels compute different bits."""
from __future__ import annotations

from harness.environment import hardware, vector_extensions

AVX2_HOST = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse4_2 avx avx2 fma f16c\n"
AVX512_HOST = AVX2_HOST.replace("f16c", "f16c avx512f avx512dq avx512bw avx512vl")


def test_one_generic_model_name_with_other_vector_extensions_reads_as_other_hardware():
    assert vector_extensions(AVX2_HOST) == ["sse4_2", "avx", "avx2", "fma", "f16c"]
    assert vector_extensions(AVX512_HOST)[-4:] == ["avx512f", "avx512dq", "avx512bw", "avx512vl"]


def test_arm_features_are_read_too_and_a_text_without_flags_gives_none():
    assert vector_extensions("model name\t: x\nFeatures\t: fp asimd evtstrm sve\n") == ["asimd", "sve"]
    assert vector_extensions("model name\t: x\n") == []


def test_the_recorded_hardware_lists_the_vector_extensions():
    assert isinstance(hardware()["vector_extensions"], list)
