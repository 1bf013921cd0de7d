"""Open-loop planning on nuScenes-format logs (FlowAD's FCP, L2 and collision rate);
its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
