"""Any lm-evaluation-harness task as a suite: lm-eval's tasks (or a folder of your task YAMLs) against local
models, with the harness's isolation, resume, store, claims and reports; its registrations are in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
