"""A Sensorium-style digital twin (Sinz lab's 2022 benchmark baselines, in miniature): a convolutional core
shared across sessions on frames t, t-1, t-2, a factorised readout per session (a spatial mask and feature
weights per neuron) and a multiplicative behavioural gain per neuron, trained with the Poisson loss. It sees
the stimulus and the behaviour, never other neurons: it answers the stimulus columns (forecast + stimulus,
population + stimulus) for their target neurons."""
from __future__ import annotations

import math

import numpy as np

from harness import Method, RunContext
from harness.model_cache import training_threads
from methods.neural_encoding.columns import BY_NAME
from methods.neural_encoding.params import CNNParams
from methods.neural_encoding.problem import EncodingInputs, Predictions, TrainSession
from methods.neural_encoding.training import check_train_sessions, loss_windows


def _network(neurons: list[int], frame: int, channels: int):  # -> torch.nn.Module
    import torch
    from torch import nn

    from methods.neural_encoding.model import VIDEO_LAGS

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


def lagged_video(video: np.ndarray) -> np.ndarray:
    """(trials, T, lags, H, W) frames t, t-1, t-2."""
    from methods.neural_encoding.model import VIDEO_LAGS

    padded = np.concatenate([np.repeat(video[:, :1], VIDEO_LAGS - 1, axis=1), video], axis=1)
    time_bins = video.shape[1]
    return np.stack([padded[:, VIDEO_LAGS - 1 - lag: VIDEO_LAGS - 1 - lag + time_bins] for lag in range(VIDEO_LAGS)],
                    axis=2)


class SensoriumCNN(Method):
    params_model = CNNParams

    def run(self, inputs: EncodingInputs, ctx: RunContext) -> Predictions:
        import torch

        with training_threads(ctx.threads):
            sessions = check_train_sessions(inputs, self.params.train_sessions)
            network = self._trained(sessions, ctx)
            out: Predictions = {}
            with torch.no_grad():
                for name, views in inputs.test.items():
                    if not BY_NAME[name].video:
                        continue
                    out[name] = [network(index, torch.from_numpy(lagged_video(view.video)),
                                         torch.from_numpy(view.behaviour)).numpy()[:, view.times][:, :, view.units]
                                 for index, view in enumerate(views) if view.video is not None]
            return out

    def _trained(self, sessions: tuple[TrainSession, ...], ctx: RunContext):  # -> torch.nn.Module
        import torch

        p = self.params
        torch.manual_seed(ctx.seed)
        rng = np.random.default_rng(ctx.seed)
        network = _network([s.spikes.shape[2] for s in sessions], sessions[0].video.shape[2], p.channels)
        lagged = [torch.from_numpy(lagged_video(s.video)) for s in sessions]
        optimiser = torch.optim.Adam(network.parameters(), lr=p.lr)
        losses = []
        for _ in range(p.steps):
            index = int(rng.integers(len(sessions)))
            rows = torch.from_numpy(rng.integers(0, sessions[index].spikes.shape[0], p.batch))
            spikes = torch.from_numpy(sessions[index].spikes)[rows]
            rate = network(index, lagged[index][rows], torch.from_numpy(sessions[index].behaviour)[rows])
            loss = (rate - spikes * torch.log(rate + 1e-6)).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(float(loss.detach()))
        ctx.record_curve("train_loss", *loss_windows(losses), higher_is_better=False)
        return network.eval()
