"""My family: the problem in one line (MyMethod, ICLR 2026); what it registers is listed in family.toml.

The manifest's targets are lazy `module:attr` strings, imported only when a run needs them, so `harness ls`
and `harness validate` stay fast; its names get the family's prefix (`my_family.`).
"""
from harness.family_manifest import register_family

register_family(__name__)
