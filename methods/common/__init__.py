"""Code several families share, so that no family imports another (tests/test_family_imports.py): a four-domain
word corpus, its word tokenizer and the tiny Llama pre-trained on it (modular_lm's base, model_init's source),
graph helpers, and the train-on-first-use cache of tiny torch models (shape_control, visual_reasoning). Not a
family: it registers nothing and has no family.toml."""
