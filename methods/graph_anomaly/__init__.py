"""Graph anomaly detection (APF, ICLR 2026) under GADBench's protocol;
its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
