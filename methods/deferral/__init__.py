"""Learning to defer to the top-k experts (Top-k L2D and Top-k(x), arXiv 2504.12988) against one-expert
deferral, cascades and the Bayes oracle; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
