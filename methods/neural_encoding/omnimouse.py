"""OmniMouse (Willeke et al., arXiv 2604.18827; spec shared/papers/omnimouse.md) in miniature: one masked
multi-modal transformer (methods.neural_encoding.model) trained on a mixture of the seven task masks, then
asked each column's question on the test trials. The spec leaves open the losses and the mask distribution
(ours: Poisson on the masked neurons, MSE on the masked behaviour, columns drawn uniformly, the observed half
of the population drawn anew per batch) and every hyperparameter.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from harness import RunContext
from methods.neural_encoding.columns import BY_NAME, COLUMNS, Column
from methods.neural_encoding.params import OmniMouseParams
from methods.neural_encoding.problem import TestView, TrainSession
from methods.neural_encoding.training import TrainedEncoder, fit


def training_masks(column: Column, batch: int, time_bins: int, neurons: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(neural seen, neural target, behaviour seen, behaviour target) masks of a batch, (B, T, N) and (B, T, 4);
    population completion observes a random half of the neurons per trial."""
    seen = np.broadcast_to(column.neural_input(time_bins, neurons), (batch, time_bins, neurons)).copy()
    if column.neural == "population":
        seen[:] = False
        for row in seen:
            row[:, rng.permutation(neurons)[: neurons // 2]] = True
    target = ~seen if column.is_neural else np.zeros_like(seen)
    behaviour_seen = np.broadcast_to(column.behaviour_input(), (batch, time_bins, 4)).copy()
    behaviour_target = np.zeros((batch, time_bins, 4), dtype=bool)
    behaviour_target[..., list(column.behaviour_targets)] = True
    return seen, target, behaviour_seen, behaviour_target


class OmniMouse(TrainedEncoder[OmniMouseParams]):
    def answers(self, column: Column) -> bool:
        return self.params.specialist in (None, column.name)

    def trained(self, sessions: tuple[TrainSession, ...], ctx: RunContext) -> Any:  # a MaskedCortexTransformer
        import torch

        from methods.neural_encoding.model import MaskedCortexTransformer, shared_parameters

        p = self.params
        torch.manual_seed(ctx.seed)
        rng = np.random.default_rng(ctx.seed)
        time_bins, frame = sessions[0].video.shape[1], sessions[0].video.shape[2]
        model = MaskedCortexTransformer([s.spikes.shape[2] for s in sessions], time_bins, frame, p.width, p.depth,
                                        p.heads)
        ctx.record("shared_parameters", shared_parameters(model))
        mixture = [BY_NAME[p.specialist]] if p.specialist else list(COLUMNS)

        def batch_loss() -> torch.Tensor:
            index = int(rng.integers(len(sessions)))
            session, column = sessions[index], mixture[int(rng.integers(len(mixture)))]
            rows = rng.integers(0, session.spikes.shape[0], p.batch)
            spikes = torch.from_numpy(session.spikes[rows])
            behaviour = torch.from_numpy(session.behaviour[rows])
            seen, target, behaviour_seen, behaviour_target = (torch.from_numpy(m) for m in training_masks(
                column, p.batch, time_bins, spikes.shape[2], rng))
            video = torch.from_numpy(session.video[rows]) if column.video else None
            log_rate, behaviour_hat = model(index, spikes, seen, behaviour, behaviour_seen, video)
            loss = torch.zeros(())
            if column.is_neural:
                poisson = torch.exp(log_rate) - spikes * log_rate
                loss = loss + poisson[target].mean()
            if column.behaviour_targets:
                loss = loss + ((behaviour_hat - behaviour)[behaviour_target] ** 2).mean()
            return loss

        fit(model, p.steps, p.lr, batch_loss, ctx)
        return model.eval()

    def predict(self, network: Any, session: int, view: TestView, column: Column) -> np.ndarray:
        import torch

        spikes = torch.from_numpy(view.spikes)
        seen = torch.from_numpy(np.broadcast_to(column.neural_input(*view.spikes.shape[1:]), view.spikes.shape).copy())
        behaviour_seen = torch.from_numpy(np.broadcast_to(column.behaviour_input(), view.behaviour.shape).copy())
        video = None if view.video is None else torch.from_numpy(view.video)
        log_rate, behaviour_hat = network(session, spikes, seen, torch.from_numpy(view.behaviour), behaviour_seen,
                                          video)
        values = torch.exp(log_rate) if column.is_neural else behaviour_hat
        return values.numpy()[:, view.times][:, :, view.units]
