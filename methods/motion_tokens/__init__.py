"""MTVCraft's 4D motion tokenizer (4DMoT, arXiv 2505.10238) against a continuous autoencoder, a 2D-pose tokenizer
and keyframes on generated and users' joint sequences, and video metrics (L1, PSNR, SSIM, Fréchet distance) on
users' renders and features; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
