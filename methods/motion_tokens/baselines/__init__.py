"""The tokenizers 4DMoT is compared with: one module each."""
