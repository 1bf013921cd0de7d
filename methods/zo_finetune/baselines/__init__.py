"""QZO's baselines: MeZO, fine-tuning with SGD (the paper's upper bound) and AdamW, LoRA, QLoRA, zero-shot."""
