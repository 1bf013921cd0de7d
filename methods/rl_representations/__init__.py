"""Simplicial embeddings (SEM) in actor-critic RL (arXiv 2510.13704): PPO, SAC and TD3 from stable-baselines3
with SEM or a rebuttal-set regulariser in the actor, the critic or both, on gymnasium classic control, MinAtar
and MuJoCo, plus the non-stationary classification diagnostic; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
