"""Math reasoning of small language models: STAT (skill-targeted adaptive training) and GRACE (teacher
selection from the student's gradients), ICLR 2026, scored as lm-eval and math-verify score;
its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
