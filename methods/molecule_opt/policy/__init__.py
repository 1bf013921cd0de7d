"""The policy miniature: a small SMILES language model (transformers' GPT-2 classes) pretrained on MOSES
neighbour pairs, then trained by SFT, GRPO, SFT + GRPO or DePO on the run's training tasks."""
