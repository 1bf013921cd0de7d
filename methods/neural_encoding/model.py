"""A miniature of OmniMouse's masked multi-modal transformer [inferred from the spec's pseudo-code; the real
model is a Perceiver over per-neuron tokens with a Hiera video encoder]. Here a trial becomes one token per
time bin, the sum of three embeddings: the neural one (the observed neurons' log1p counts read in through
per-session unit embeddings, plus the embedding of which neurons are observed: the session-specific neuron
identity), the video one (frames t, t-1, t-2: pixels and a small conv encoder) and the behaviour one (observed
values and their mask); a learned "no video" vector stands in where the mask hides the movie. A transformer
encoder mixes the time bins; per-session unit read-outs give log rates, a linear head the behaviour. Which
values are inputs and which are predicted is the mask, so one network serves all seven task columns.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from methods.neural_encoding.movies import VIDEO_LAGS


class VideoEncoder(nn.Module):
    """Frames t, t-1, t-2 as channels -> one token per time bin: a linear embedding of the pixels (as a ViT's
    patch embedding, here one patch) plus a small conv encoder's features."""

    def __init__(self, frame: int, width: int) -> None:
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(VIDEO_LAGS, 8, 5, stride=2, padding=2), nn.GELU(),
                                  nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.GELU(), nn.Flatten())
        side = math.ceil(math.ceil(frame / 2) / 2)
        self.project = nn.Linear(8 * side * side, width)
        self.pixels = nn.Linear(VIDEO_LAGS * frame * frame, width)

    def forward(self, video: torch.Tensor) -> torch.Tensor:
        batch, time_bins = video.shape[:2]
        padded = torch.cat([video[:, :1].expand(-1, VIDEO_LAGS - 1, -1, -1), video], dim=1)
        lagged = torch.stack([padded[:, VIDEO_LAGS - 1 - lag: VIDEO_LAGS - 1 - lag + time_bins]
                              for lag in range(VIDEO_LAGS)], dim=2)
        frames = lagged.flatten(0, 1)
        tokens = self.project(self.conv(frames)) + self.pixels(frames.flatten(1))
        return tokens.view(batch, time_bins, -1)


class MaskedCortexTransformer(nn.Module):
    def __init__(self, neurons: list[int], time_bins: int, frame: int, width: int, depth: int, heads: int) -> None:
        super().__init__()
        self.read_in = nn.ParameterList([nn.Parameter(torch.randn(n, width) / math.sqrt(n)) for n in neurons])
        self.seen_in = nn.ParameterList([nn.Parameter(torch.randn(n, width) / math.sqrt(n)) for n in neurons])
        self.read_out = nn.ParameterList([nn.Parameter(torch.randn(n, width) / math.sqrt(width)) for n in neurons])
        self.unit_bias = nn.ParameterList([nn.Parameter(torch.full((n,), -0.5)) for n in neurons])
        self.video = VideoEncoder(frame, width)
        self.behaviour_in = nn.Linear(8, width)
        self.no_video = nn.Parameter(torch.zeros(width))
        self.time = nn.Parameter(torch.randn(time_bins, width) * 0.1)
        layer = nn.TransformerEncoderLayer(width, heads, 2 * width, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.behaviour_out = nn.Linear(width, 4)

    def forward(self, session: int, spikes: torch.Tensor, seen: torch.Tensor, behaviour: torch.Tensor,
                behaviour_seen: torch.Tensor, video: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """(log rates (B, T, N), behaviour (B, T, 4)) from the observed entries (`seen`, `behaviour_seen` masks)."""
        time_bins = spikes.shape[1]
        neural = (torch.log1p(spikes) * seen) @ self.read_in[session] + seen.float() @ self.seen_in[session]
        behaviour_values = torch.cat([behaviour * behaviour_seen, behaviour_seen.float()], -1)
        token = neural + self.behaviour_in(behaviour_values) + self.time[:time_bins]
        token = token + (self.video(video) if video is not None else self.no_video)
        hidden = self.norm(self.encoder(token))
        log_rate = hidden @ self.read_out[session].T + self.unit_bias[session]
        return log_rate, self.behaviour_out(hidden)


def shared_parameters(model: nn.Module) -> int:
    """Parameters shared across sessions (the per-session unit embeddings left out): the size axis of scaling."""
    per_session = {id(p) for name in ("read_in", "seen_in", "read_out", "unit_bias") for p in getattr(model, name)}
    return sum(p.numel() for p in model.parameters() if id(p) not in per_session)
