"""The tiny tasks' documents: a JSONL file beside this module, read as lm-eval's `custom_dataset`.

lm-eval resolves a YAML's `data_files` against the working directory; reading the file relative to this
module lets the committed tasks run from wherever the harness is started.
"""
from pathlib import Path

import datasets


def load_jsonl(file: str, **metadata: object) -> datasets.DatasetDict:
    """One `test` split from `file` (a name in this folder); lm-eval passes its task metadata too."""
    path = Path(__file__).with_name(file)
    return datasets.DatasetDict({"test": datasets.Dataset.from_json(str(path))})
