"""Neural encoding and scaling (OmniMouse, arXiv 2604.18827): a masked multi-modal model whose mask is the
task, on a simulated cortex with known rates, against LN, CNN and reference predictors; users' predicted
traces for real test splits are scored with the same metrics. Registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
