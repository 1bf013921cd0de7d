"""Template only, never copied: lets `harness ... --plugin templates/family/plugin.py` use the starter family
where it lies, as `methods.my_family`, without installing anything.

It adds this folder to the `methods` package's search path (what `pkgutil.extend_path` does for a package
spread over folders), then imports the family, whose `__init__` registers its names. Copied into `methods/`
and listed under the `harness.families` entry points, the same code registers with no plugin at all.
"""
import importlib
from pathlib import Path

import methods

methods.__path__.append(str(Path(__file__).resolve().parent))
importlib.import_module("methods.my_family")
