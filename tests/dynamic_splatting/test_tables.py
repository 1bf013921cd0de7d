"""The family's report tables: paired differences from the reference are per seed, with a Student-t interval."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from methods.dynamic_splatting.tables import paired_differences


def test_paired_differences_pair_by_seed_against_uniform():
    pairs = [(20.0, 19.0), (25.0, 23.0), (22.0, 22.5)]  # (uniform, usplat4d) per seed
    rows = [{"method": "uniform", "dataset": "rigid", "seed": seed, "status": "ok", "metric.psnr_moving": base}
            for seed, (base, _) in enumerate(pairs)]
    rows += [{"method": "usplat4d", "dataset": "rigid", "seed": seed, "status": "ok", "metric.psnr_moving": own}
             for seed, (_, own) in reversed(list(enumerate(pairs)))]  # listed in another order: paired by seed
    runs = pd.DataFrame(rows)
    differences = np.array([-1.0, -2.0, 0.5])
    half = student_t.ppf(0.975, 2) * differences.std(ddof=1) / np.sqrt(3)
    table = paired_differences(runs, ("psnr_moving", "psnr_static"))
    assert f"| usplat4d − uniform | {differences.mean():+.2f} ± {half:.2f} |" in table
    assert "psnr_static" not in table
