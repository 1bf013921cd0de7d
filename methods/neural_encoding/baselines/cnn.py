"""A Sensorium-style digital twin (Sinz lab's 2022 benchmark baselines, in miniature): a convolutional core
shared across sessions on frames t, t-1, t-2, a factorised readout per session (a spatial mask and feature
weights per neuron) and a multiplicative behavioural gain per neuron, trained with the Poisson loss. It sees
the stimulus and the behaviour, never other neurons: it answers the stimulus columns (forecast + stimulus,
population + stimulus) for their target neurons."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from harness import RunContext
from methods.neural_encoding.columns import Column
from methods.neural_encoding.movies import VIDEO_LAGS, lagged_frames
from methods.neural_encoding.params import CNNParams
from methods.neural_encoding.problem import TestView, TrainSession
from methods.neural_encoding.training import TrainedEncoder, fit


def _network(neurons: list[int], frame: int, channels: int):  # -> torch.nn.Module
    import torch
    from torch import nn

    class CoreReadout(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.core = nn.Sequential(nn.Conv2d(VIDEO_LAGS, channels, 5, padding=2), nn.ELU(),
                                      nn.Conv2d(channels, channels, 3, padding=1), nn.ELU())
            self.spatial = nn.ParameterList([nn.Parameter(torch.randn(n, frame * frame) * 0.01) for n in neurons])
            self.features = nn.ParameterList([nn.Parameter(torch.randn(n, channels) / math.sqrt(channels))
                                              for n in neurons])
            self.gain = nn.ParameterList([nn.Parameter(torch.zeros(4, n)) for n in neurons])
            self.bias = nn.ParameterList([nn.Parameter(torch.zeros(n)) for n in neurons])

        def forward(self, session: int, lagged: torch.Tensor, behaviour: torch.Tensor) -> torch.Tensor:
            """Rates (B, T, N) from lagged frames (B, T, lags, H, W) and behaviour (B, T, 4)."""
            batch, time_bins = lagged.shape[:2]
            maps = self.core(lagged.flatten(0, 1)).flatten(2)                    # (B*T, C, HW)
            pooled = torch.einsum("bcp,np->bnc", maps, self.spatial[session])  # (B*T, N, C)
            drive = (pooled * self.features[session]).sum(-1).view(batch, time_bins, -1) + self.bias[session]
            return nn.functional.softplus(drive) * torch.exp(behaviour @ self.gain[session])

    return CoreReadout()


class SensoriumCNN(TrainedEncoder[CNNParams]):
    def answers(self, column: Column) -> bool:
        return column.video

    def trained(self, sessions: tuple[TrainSession, ...], ctx: RunContext) -> Any:
        import torch

        p = self.params
        torch.manual_seed(ctx.seed)
        rng = np.random.default_rng(ctx.seed)
        network = _network([s.spikes.shape[2] for s in sessions], sessions[0].video.shape[2], p.channels)
        lagged = [torch.from_numpy(lagged_frames(s.video)) for s in sessions]

        def batch_loss() -> torch.Tensor:
            index = int(rng.integers(len(sessions)))
            rows = torch.from_numpy(rng.integers(0, sessions[index].spikes.shape[0], p.batch))
            spikes = torch.from_numpy(sessions[index].spikes)[rows]
            rate = network(index, lagged[index][rows], torch.from_numpy(sessions[index].behaviour)[rows])
            return (rate - spikes * torch.log(rate + 1e-6)).mean()

        fit(network, p.steps, p.lr, batch_loss, ctx)
        return network.eval()

    def predict(self, network: Any, session: int, view: TestView, column: Column) -> np.ndarray:
        import torch

        assert view.video is not None  # answers() admits the stimulus columns alone
        rate = network(session, torch.from_numpy(lagged_frames(view.video)), torch.from_numpy(view.behaviour))
        return rate.numpy()[:, view.times][:, :, view.units]
