"""The SEM layer: every group of every row is a distribution, the shapes, and gradients reach its input."""
import pytest
import torch

pytest.importorskip("stable_baselines3", reason="the `rl` extra (stable-baselines3) is not installed")

from methods.rl_representations.sem import SimNormLinear, simplicial_softmax  # noqa: E402


def test_each_group_of_each_row_sums_to_one_and_is_positive():
    layer = SimNormLinear(7, groups=8, group_size=64)
    out = layer(torch.randn(5, 7) * 10)
    assert out.shape == (5, 512) and layer.out_features == 512
    groups = out.reshape(5, 8, 64)
    torch.testing.assert_close(groups.sum(dim=-1), torch.ones(5, 8))
    assert (out > 0).all()


def test_the_softmax_is_taken_within_groups_not_across_them():
    z = torch.tensor([[0.0, 0.0, 5.0, 5.0]])
    torch.testing.assert_close(simplicial_softmax(z, groups=2), torch.tensor([[0.5, 0.5, 0.5, 0.5]]))
    torch.testing.assert_close(simplicial_softmax(z, groups=1).sum(), torch.tensor(1.0))


def test_a_lower_temperature_makes_groups_nearer_one_hot():
    z = torch.tensor([[1.0, 2.0, 3.0]])
    assert simplicial_softmax(z, 1, temperature=0.1).max() > simplicial_softmax(z, 1, temperature=1.0).max()


def test_gradients_flow_to_the_input_and_every_parameter():
    layer = SimNormLinear(4, groups=2, group_size=3)
    h = torch.randn(6, 4, requires_grad=True)
    (layer(h) * torch.randn(6, 6)).sum().backward()
    assert h.grad is not None and h.grad.abs().sum() > 0
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in layer.parameters())


def test_bad_shapes_and_settings_are_refused():
    with pytest.raises(ValueError, match="equal groups"):
        simplicial_softmax(torch.zeros(1, 5), groups=2)
    with pytest.raises(ValueError, match="temperature"):
        SimNormLinear(3, temperature=0.0)
