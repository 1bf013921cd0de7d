"""Forward kinematics, retargeting and the generated motion: bones keep their lengths, retargeting changes
exactly the lengths asked for, the generators make what the loader promises."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from harness import DataError
from methods.motion_tokens.data import generated
from methods.motion_tokens.gaits import MOTIONS, motion_clip
from methods.motion_tokens.skeleton import (SKELETONS, bone_lengths, euler_matrices, forward_kinematics,
                                            retarget)


def test_euler_matrices_match_scipy_intrinsic_zyx():
    angles = np.random.default_rng(0).uniform(-3, 3, (20, 3))
    expected = Rotation.from_euler("ZYX", angles[:, ::-1]).as_matrix()
    np.testing.assert_allclose(euler_matrices(angles), expected, atol=1e-12)


@pytest.mark.parametrize("name", sorted(SKELETONS))
def test_rest_pose_is_the_sum_of_offsets_down_the_tree(name):
    skeleton = SKELETONS[name]
    positions = forward_kinematics(skeleton, np.zeros((1, skeleton.num_joints, 3)), skeleton.offsets[:1])[0]
    for joint, parent in enumerate(skeleton.parents):
        if parent >= 0:
            np.testing.assert_allclose(positions[joint], positions[parent] + skeleton.offsets[joint])


@pytest.mark.parametrize("name", sorted(SKELETONS))
def test_any_rotations_keep_every_bone_length(name):
    skeleton = SKELETONS[name]
    rng = np.random.default_rng(1)
    positions = forward_kinematics(skeleton, rng.uniform(-2, 2, (10, skeleton.num_joints, 3)), rng.normal(size=(10, 3)))
    expected = np.linalg.norm(skeleton.offsets, axis=1)
    np.testing.assert_allclose(bone_lengths(positions, skeleton.parents)[:, 1:], np.tile(expected[1:], (10, 1)))


def test_retargeting_scales_each_bone_and_keeps_its_direction():
    skeleton = SKELETONS["smpl22"]
    clip = motion_clip(skeleton, "walk", 16, np.random.default_rng(2))
    scale = np.random.default_rng(3).uniform(0.8, 1.2, skeleton.num_joints)
    moved = retarget(clip, skeleton.parents, scale)
    np.testing.assert_allclose(bone_lengths(moved, skeleton.parents)[:, 1:],
                               bone_lengths(clip, skeleton.parents)[:, 1:] * scale[1:])
    parents = list(skeleton.parents[1:])
    before, after = clip[:, 1:] - clip[:, parents], moved[:, 1:] - moved[:, parents]
    cosine = (before * after).sum(-1) / np.linalg.norm(before, axis=-1) / np.linalg.norm(after, axis=-1)
    np.testing.assert_allclose(cosine, 1.0)
    np.testing.assert_array_equal(moved[:, 0], clip[:, 0])


def test_retargeting_by_the_body_scale_equals_kinematics_of_the_scaled_body():
    skeleton = SKELETONS["h36m17"]
    scale = np.full(skeleton.num_joints, 1.1)
    plain = motion_clip(skeleton, "dance", 12, np.random.default_rng(4))
    scaled = motion_clip(skeleton, "dance", 12, np.random.default_rng(4), bone_scale=scale)
    np.testing.assert_allclose(retarget(plain, skeleton.parents, scale), scaled, atol=1e-12)


@pytest.mark.parametrize("motion", MOTIONS)
def test_every_motion_moves_and_stays_above_the_floor(motion):
    clip = motion_clip(SKELETONS["h36m17"], motion, 32, np.random.default_rng(5))
    assert np.isfinite(clip).all() and clip[..., 1].min() > -0.1
    assert np.ptp(clip - clip[:, :1], axis=0).max() > 0.05  # some joint moves relative to the root


def test_generated_set_takes_the_motions_in_turn():
    data = generated(skeleton="smpl22", motions=["walk", "wave"], clips=5, frames=8, seed=0)
    assert data.clips.shape == (5, 8, 22, 3) and data.labels == ("walk", "wave", "walk", "wave", "walk")
    np.testing.assert_array_equal(data.clips, generated(skeleton="smpl22", motions=["walk", "wave"], clips=5,
                                                        frames=8, seed=0).clips)


@pytest.mark.parametrize(("args", "field"), [({"skeleton": "smpl99"}, "skeleton"), ({"motions": ["fly"]}, "motions"),
                                             ({"frames": 10}, "frames"), ({"body_variation": 1.5}, "body_variation")])
def test_bad_generator_arguments_name_the_field(args, field):
    with pytest.raises(DataError) as error:
        generated(**args)
    assert error.value.field == field
