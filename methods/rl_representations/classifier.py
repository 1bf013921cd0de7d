"""The diagnostic's network: an MLP on the digits (Linear -> ReLU -> Linear -> ReLU -> Linear), whose second
hidden layer takes the representation (SEM, LayerNorm, dropout, spectral norm or none) exactly as an agent's
penultimate layer does, trained with Adam in minibatches through every label phase without any reset."""
from __future__ import annotations

from typing import Any


from harness import Method, RunContext
from methods.rl_representations.nonstationary import LabelPhases
from methods.rl_representations.params import ClassifierParams


class PhasedClassifier(Method[ClassifierParams]):
    def run(self, inputs: LabelPhases, ctx: RunContext) -> dict[str, list[float]]:
        import torch
        from torch import nn

        from methods.rl_representations.agents import representation_spec
        from methods.rl_representations.diagnostics import dormant_ratio, srank
        from methods.rl_representations.representations import represented

        torch.set_num_threads(max(1, ctx.threads))
        torch.manual_seed(ctx.seed)
        p, width = self.params, self.params.hidden
        plain = nn.Sequential(nn.Linear(inputs.x.shape[1], width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                              nn.Linear(width, inputs.num_classes))
        net, _ = represented(plain, representation_spec(p), has_output=True)
        optimiser = torch.optim.Adam(net.parameters(), lr=p.learning_rate)
        x = torch.as_tensor(inputs.x)
        generator = torch.Generator().manual_seed(ctx.seed)
        rows: dict[str, list[float]] = {name: [] for name in ("epoch", "phase", "accuracy", "dormant", "srank")}
        assert inputs.labels is not None  # the task draws them
        for phase, labels in enumerate(torch.as_tensor(inputs.labels)):
            for _ in range(inputs.epochs_per_phase):
                net.train()
                for batch in torch.randperm(len(x), generator=generator).split(p.batch_size):
                    optimiser.zero_grad()
                    nn.functional.cross_entropy(net(x[batch]), labels[batch]).backward()
                    optimiser.step()
                net.eval()
                with torch.no_grad():
                    features = net[:-1](x).numpy()
                    accuracy = 100.0 * float((net[-1](torch.as_tensor(features)).argmax(1) == labels).float().mean())
                epoch = len(rows["epoch"]) + 1
                row: dict[str, Any] = {"epoch": epoch, "phase": phase, "accuracy": accuracy,
                                       "dormant": dormant_ratio(features), "srank": srank(features)}
                for name, value in row.items():
                    rows[name].append(float(value))
                for name in ("accuracy", "dormant", "srank"):
                    ctx.record_point(name, epoch, row[name], higher_is_better=name != "dormant")
        return rows
