"""One colour per method, the same in every plot of a report (bars, scatter, curves)."""
from __future__ import annotations

from typing import Any

from matplotlib import colormaps


def method_colors(methods: tuple[str, ...]) -> dict[str, Any]:
    """One distinct colour per method: tab10, or tab20 past ten methods."""
    colormap = colormaps["tab10" if len(methods) <= 10 else "tab20"]
    palette = [colormap(i) for i in range(colormap.N)]
    return {method: palette[i % len(palette)] for i, method in enumerate(methods)}
