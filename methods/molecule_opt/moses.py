"""The MOSES molecules (Polykovskiy et al. 2020) as the `molsets` wheel ships them: `dataset/data/train.csv.gz`
(1.58M SMILES) and `test.csv.gz` (176k). Read from the installed files without `import moses`, which imports
fcd_torch. molsets pins pomegranate 0.12, which does not build: install it with `pip install --no-deps molsets`."""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Literal

from harness import DataError

Split = Literal["train", "test"]


def moses_file(split: Split) -> Path:
    """The installed MOSES CSV of `split`; a `DataError` saying how to install it when molsets is absent."""
    spec = importlib.util.find_spec("moses")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(folders[0]) / "dataset" / "data" / f"{split}.csv.gz" if folders else None
    if path is None or not path.is_file():
        raise DataError(f"the MOSES {split} molecules are not installed (expected the molsets package's "
                        f"moses/dataset/data/{split}.csv.gz)",
                        hint="Install them with `pip install --no-deps molsets==0.3.1` (its pomegranate pin does "
                             "not build), or bring your own prompts file (methods/molecule_opt/README.md).")
    return path


@lru_cache(maxsize=4)
def moses_smiles(split: Split, rows: int | None = None) -> tuple[str, ...]:
    """The first `rows` SMILES of `split` in file order (all when None)."""
    import pandas as pd

    return tuple(pd.read_csv(moses_file(split), nrows=rows)["SMILES"].astype(str))
