"""Generated, verifiable visual puzzles in the style of ThinkMorph's four tasks (arXiv 2510.27492): jigsaw
reassembly, maze navigation, visual search and chart refocus, with reference solvers and a scoring path for
your own model's answers; its registrations are listed in family.toml."""
from harness.family_manifest import register_family

register_family(__name__)
