"""The representations placed in stable-baselines3 networks: where each goes, the widths the heads read, and that
the target networks mirror the online ones."""
import pytest
import torch
from torch import nn

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations.representations import RepresentationSpec, represented  # noqa: E402
from methods.rl_representations.sem import SimNormLinear  # noqa: E402


def mlp(has_output: bool) -> nn.Sequential:
    layers = [nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU()]
    return nn.Sequential(*layers, *([nn.Linear(16, 2)] if has_output else []))


@pytest.mark.parametrize("has_output", [True, False])
def test_sem_replaces_the_penultimate_hidden_layer(has_output):
    net, width = represented(mlp(has_output), RepresentationSpec("sem", groups=4, group_size=8), has_output)
    assert width == 32 and isinstance(net[2], SimNormLinear)
    assert isinstance(net[0], nn.Linear) and net[0].out_features == 16  # the first hidden layer is kept
    out = net(torch.randn(5, 3))
    assert out.shape == ((5, 2) if has_output else (5, 32))


def test_layernorm_keeps_the_width_and_activation_without_the_grouped_softmax():
    net, width = represented(mlp(True), RepresentationSpec("layernorm", groups=4, group_size=8), True)
    assert width == 32 and [type(m) for m in net] == [nn.Linear, nn.ReLU, nn.Linear, nn.LayerNorm, nn.ReLU, nn.Linear]


def test_dropout_follows_every_hidden_activation_and_spectral_norm_the_penultimate_weight():
    net, width = represented(mlp(True), RepresentationSpec("dropout", dropout=0.5), True)
    assert width == 16 and [type(m) for m in net].count(nn.Dropout) == 2 and isinstance(net[-1], nn.Linear)
    net, _ = represented(mlp(True), RepresentationSpec("spectral_norm"), True)
    assert hasattr(net[2], "parametrizations") and not hasattr(net[0], "parametrizations")
    assert float(torch.linalg.matrix_norm(net[2].weight.detach(), ord=2)) == pytest.approx(1.0, abs=0.05)


def test_none_leaves_the_network_alone_and_an_empty_net_arch_is_refused():
    net, width = represented(mlp(True), RepresentationSpec("none"), True)
    assert width == 16 and len(net) == 5
    with pytest.raises(ValueError, match="hidden layer"):
        represented(nn.Sequential(nn.Linear(3, 1)), RepresentationSpec("sem"), True)


@pytest.mark.parametrize("placement", ["actor", "critic", "both"])
def test_placement_selects_the_networks(placement):
    spec = RepresentationSpec("sem", placement)
    assert spec.applies_to("actor") == (placement != "critic")
    assert spec.applies_to("critic") == (placement != "actor")
    assert not RepresentationSpec("none", placement).applies_to("actor")
