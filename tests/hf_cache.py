"""A Hub dataset placed in a local `datasets` cache without the Hub: what `load_dataset(repo, config)` leaves
behind (`<cache>/<owner>___<name>/<config>/<version>/<hash>/` holding `dataset_info.json` and one
`<name>-<split>.arrow` per split), built here by `datasets`' own Parquet builder and moved into place."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd


def cache_hub_dataset(cache: Path, repo: str, config: str, splits: dict[str, pd.DataFrame]) -> Path:
    """Write `splits` as the cached copy of `repo`/`config` under `cache`; returns the copy's folder."""
    import datasets

    owner, name = repo.split("/")
    scratch = cache.parent / f"{cache.name}-build"
    files = {}
    for split, frame in splits.items():
        files[split] = str(scratch / f"{split}.parquet")
        scratch.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(files[split])
    datasets.load_dataset("parquet", data_files=files, cache_dir=str(scratch / "cache"))
    built = next((scratch / "cache" / "parquet").glob("*/*/*/dataset_info.json")).parent
    folder = cache / f"{owner}___{name}" / config / "0.0.0" / "0123abcd"
    folder.mkdir(parents=True)
    info = json.loads((built / "dataset_info.json").read_text())
    (folder / "dataset_info.json").write_text(json.dumps(info | {"config_name": config, "dataset_name": name}))
    for split in splits:
        shutil.copy(built / f"parquet-{split}.arrow", folder / f"{name}-{split}.arrow")
    shutil.rmtree(scratch)
    return folder
