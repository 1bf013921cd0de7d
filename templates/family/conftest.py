"""Template only, never copied: registers the starter family for its tests and benchmark, as plugin.py
does for the command line. In the repository the family's entry point registers it."""
from pathlib import Path

from harness.registry import load_plugin_file

load_plugin_file(Path(__file__).with_name("plugin.py"))
