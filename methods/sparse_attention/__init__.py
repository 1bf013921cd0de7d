"""Block-sparse prefill attention (ProxyAttn, ICLR 2026, against its baselines);
its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
