"""Fast operators (Triton on GPU), each beside a plain-torch reference of the same semantics.

Not to be confused with Hugging Face's `kernels` distribution, which transformers probes
for: this package ships inside the `iclr26-harness` distribution, defines no
`__version__` and none of that package's API, so transformers' probe finds it not
viable (`tests/test_packaging.py` checks this).
"""
