"""Spatially controlled 3D shape generation in miniature (SpaceControl, arXiv 2512.05343): generated
superquadric furniture, a tiny rectified-flow generator, SpaceControl's noised-control start over tau0 and its
baselines, and faithfulness/realism metrics usable on your own meshes; its registrations are listed in
family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
