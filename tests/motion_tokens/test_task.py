"""The reconstruction task: its instances, the predictions table's round trip, the scores of known
reconstructions, and each tokenizer's output on a small problem."""
from __future__ import annotations

import numpy as np
import pytest

from harness import DataError, RunContext
from methods.motion_tokens import metrics
from methods.motion_tokens.baselines.autoencoder import ContinuousAutoencoder
from methods.motion_tokens.baselines.keyframes import Keyframes, interpolate_keyframes, quantised
from methods.motion_tokens.baselines.pose2d import Pose2DTokenizer
from methods.motion_tokens.data import generated
from methods.motion_tokens.fourdmot import FourDMoT
from methods.motion_tokens.problem import Reconstruction
from methods.motion_tokens.skeleton import bone_lengths
from methods.motion_tokens.task import MotionReconstruction

TASK = MotionReconstruction()
ALL = {name: getattr(metrics, name.upper()) for name in
       ("mpjpe", "pa_mpjpe", "accel_error", "mpjpe_noise", "mpjpe_retarget", "codebook_usage", "perplexity",
        "render_psnr", "render_ssim", "bits_per_frame")}


@pytest.fixture(scope="module")
def instance():
    return TASK.instance(generated(clips=20, frames=16, seed=0), {"test_fraction": 0.25, "noise_mm": 10}, seed=3)


def test_instance_splits_the_clips_and_derives_noisy_and_retargeted_variants(instance):
    inputs, truth = instance.inputs, instance.truth
    assert len(inputs.train) == 15 and inputs.test["clean"].shape == (5, 16, 17, 3)
    noise = inputs.test["noisy"] - truth.clean
    assert 0.007 < noise.std() < 0.013
    ratio = bone_lengths(truth.retargeted, truth.parents)[..., 1:] / bone_lengths(truth.clean, truth.parents)[..., 1:]
    assert 0.8 <= ratio.min() and ratio.max() <= 1.2 and np.ptp(ratio) > 0.1


def test_identity_reconstruction_scores_zero_error_and_the_noise_itself(instance):
    identity = Reconstruction(dict(instance.inputs.test))
    scores = TASK.score(instance, TASK.predictions(instance, identity), ALL)
    assert scores["mpjpe"] == scores["accel_error"] == scores["mpjpe_retarget"] == 0.0
    assert scores["pa_mpjpe"] == pytest.approx(0.0, abs=1e-9)
    noise = 1000 * np.linalg.norm(instance.inputs.test["noisy"] - instance.truth.clean, axis=-1).mean()
    assert scores["mpjpe_noise"] == pytest.approx(noise)
    assert scores["render_psnr"] == np.inf and scores["render_ssim"] == 1.0 and np.isnan(scores["codebook_usage"])


def test_a_table_reads_back_the_decoded_clips_and_tokens(instance):
    shifted = {variant: clips + 0.01 for variant, clips in instance.inputs.test.items()}
    tokens = np.arange(5 * 12).reshape(5, 12) % 7
    table = TASK.predictions(instance, Reconstruction(shifted, tokens, codebook_size=8))
    scores = TASK.score(instance, table.sample(frac=1.0, random_state=0), ALL)  # row order does not matter
    assert scores["mpjpe"] == pytest.approx(10 * np.sqrt(3))
    assert scores["codebook_usage"] == 87.5 and scores["perplexity"] == pytest.approx(7.0, rel=0.02)
    assert scores["render_psnr"] < 60


@pytest.mark.parametrize("bad", [{"tokens": np.full((5, 4), 9)}, {"decoded_shape": (5, 16, 17, 2)}])
def test_malformed_reconstructions_are_rejected(instance, bad):
    test = instance.inputs.test
    decoded = {variant: np.zeros(bad.get("decoded_shape", clips.shape)) for variant, clips in test.items()}
    with pytest.raises(ValueError):
        TASK.predictions(instance, Reconstruction(decoded, bad.get("tokens"), codebook_size=8))


@pytest.mark.parametrize(("change", "says"), [
    (lambda t: t.assign(variant=t["variant"].replace("noisy", "blurred")), "unknown variant 'blurred'"),
    (lambda t: t.assign(frame=t["frame"] + 1), "clean: frame 16 is outside the clips' 16"),
    (lambda t: t.assign(token=t["token"].where(t["variant"] != "codes", 8)), "a token outside the codebook's 8"),
    (lambda t: t.iloc[:-1], "codes: 59 rows, not one per clip"),
])
def test_a_table_that_does_not_fill_the_clips_is_refused(instance, change, says):
    tokens = np.arange(5 * 12).reshape(5, 12) % 7
    table = TASK.predictions(instance, Reconstruction(dict(instance.inputs.test), tokens, codebook_size=8))
    with pytest.raises(DataError, match=says):
        TASK.score(instance, TASK.checked(instance, change(table)), ALL)


@pytest.mark.parametrize("split", [{"test_size": 0.2}, {"retarget": 1.5}, {"noise_mm": -1}])
def test_bad_split_keys_and_values_are_rejected(split):
    with pytest.raises(ValueError):
        TASK.check_split(split)


def test_keyframes_reproduce_linear_motion_exactly_and_keep_the_keyframes():
    clips = np.random.default_rng(0).normal(size=(2, 1, 5, 3)) * np.arange(13)[None, :, None, None]
    np.testing.assert_allclose(interpolate_keyframes(clips, 4), clips, atol=1e-12)
    wiggly = np.random.default_rng(1).normal(size=(2, 13, 5, 3))
    np.testing.assert_array_equal(interpolate_keyframes(wiggly, 4)[:, ::4], wiggly[:, ::4])


@pytest.mark.parametrize("method", [FourDMoT(steps=5, codebook_size=16, width=8), Pose2DTokenizer(steps=5, width=8),
                                    ContinuousAutoencoder(steps=5, width=8), Keyframes(stride=4)])
def test_each_tokenizer_returns_a_scoreable_reconstruction(instance, method):
    output = method.run(instance.inputs, RunContext(seed=0, device="cpu", threads=1))
    scores = TASK.score(instance, TASK.predictions(instance, output), ALL)
    assert all(np.isfinite(scores[name]) for name in ("mpjpe", "pa_mpjpe", "mpjpe_noise", "render_ssim"))
    quantises = isinstance(method, FourDMoT | Pose2DTokenizer)
    assert (output.tokens is not None) == quantises
    if quantises:
        assert output.tokens.shape == (5, 16 // 4 * 17) and 0 < scores["codebook_usage"] <= 100


def test_training_is_reproducible_for_a_seed(instance):
    first, second = (FourDMoT(steps=5, width=8).run(instance.inputs, RunContext(seed=1, device="cpu", threads=1))
                     for _ in range(2))
    np.testing.assert_array_equal(first.decoded["clean"], second.decoded["clean"])
    np.testing.assert_array_equal(first.tokens, second.tokens)


def test_quantised_values_lie_on_the_levels_within_half_a_step():
    values = np.random.default_rng(0).uniform(-1, 2, size=(50, 3))
    low, high = np.array([-1.0, -1.0, -1.0]), np.array([2.0, 2.0, 2.0])
    rounded = quantised(values, low, high, bits=4)
    step = 3.0 / 15
    assert np.abs(rounded - values).max() <= step / 2 + 1e-12
    np.testing.assert_allclose((rounded - low) / step, np.round((rounded - low) / step), atol=1e-9)


@pytest.mark.parametrize(("stride", "kept"), [(4, 5), (8, 3), (15, 2)])
def test_keyframe_bits_count_the_kept_values_at_their_bits_plus_the_origin(instance, stride, kept):
    """16-frame clips of 17 joints: frames 0, stride, ... and 15 kept, 3 values a joint, 8 bits a value."""
    output = Keyframes(stride=stride, value_bits=8).run(instance.inputs, RunContext(seed=0, device="cpu", threads=1))
    scores = TASK.score(instance, TASK.predictions(instance, output), ALL)
    assert output.bits_per_clip == kept * 17 * 3 * 8 + 32
    assert scores["bits_per_frame"] == pytest.approx(output.bits_per_clip / 16)


def test_coarser_keyframe_values_cost_accuracy(instance):
    ctx = RunContext(seed=0, device="cpu", threads=1)
    errors = [TASK.score(instance, TASK.predictions(instance, Keyframes(value_bits=bits).run(instance.inputs, ctx)),
                         {"mpjpe": ALL["mpjpe"]})["mpjpe"] for bits in (4, 8, 32)]
    assert errors[0] > errors[1] > errors[2]


def test_bits_per_frame_counts_tokens_when_the_table_leaves_bits_empty(instance):
    tokens = np.arange(5 * 12).reshape(5, 12) % 7
    table = TASK.predictions(instance, Reconstruction(dict(instance.inputs.test), tokens, codebook_size=8))
    assert table["bits"].isna().all()
    assert TASK.score(instance, table.drop(columns="bits"), ALL)["bits_per_frame"] == pytest.approx(12 * 3 / 16)
    assert np.isnan(TASK.score(instance, TASK.predictions(instance, Reconstruction(dict(instance.inputs.test))),
                               ALL)["bits_per_frame"])


def test_4dmot_records_codebook_curves_and_stops_resetting_after_reset_until(instance):
    ctx = RunContext(seed=0, device="cpu", threads=1)
    output = FourDMoT(steps=60, codebook_size=64, width=8, reset_window=10, reset_until=0.5).run(instance.inputs, ctx)
    assert {"train_loss", "val_mpjpe", "train_usage", "train_perplexity", "codes_reset"} <= set(ctx.curves)
    resets = ctx.curves["codes_reset"]
    assert sum(v for s, v in zip(resets.steps, resets.values, strict=True) if s - 20 >= 30) == 0  # windows of 20
    assert 0 < ctx.measurements["last_reset_step"].value <= 30
    assert all(0 < u <= 100 for u in ctx.curves["train_usage"].values)
    assert output.bits_per_clip == 16 // 4 * 17 * 6 + 32


def test_each_test_clip_gets_the_motion_label_of_the_clip_it_came_from():
    from methods.motion_tokens.motion_breakdown import clip_motions

    data = generated(clips=20, frames=16, seed=0)
    instance = TASK.instance(data, {"test_fraction": 0.25}, seed=3)
    order = np.random.default_rng(3).permutation(20)[:5]  # the split's own draw
    assert clip_motions(data.clips, data.labels, instance.truth.clean) == [data.labels[i] for i in order]
