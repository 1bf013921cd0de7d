"""MASA (ICLR 2026, "Inheriting Generalizable Knowledge from LLMs to Diverse Vertical Tasks") in miniature:
gene matrices learned from the source's FFNs under output and spectral alignment (`genes.py`), reshaped by SVD
into the student's FFNs. The non-FFN weights are inherited from the same hidden channels, chosen evenly (uniform
selection) or by magnitude, or left random (`rest`), so the student's residual basis is the one its FFNs were cut
to.

The genes depend on the source and the extraction parameters only (not on the run seed or the student), so they
are learned once and cached in the model cache (`masa-genes-<digest>/genes.pt`)."""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import torch

from harness import RunContext
from harness.fingerprint import digest
from harness.model_cache import TRAINING_THREADS, cache_root, cached_folder
from methods.model_init.genes import FFN, ffn_of, group_layers, learn_genes, neuron_leverage, reshape_ffn
from methods.model_init.inherit import evenly, fitting_shapes, inherit_rest
from methods.model_init.method import Initialiser, Origins, calibration_ids, ffn_inputs
from methods.model_init.params import MasaParams
from methods.model_init.task import InitInputs

_EXTRACTION = ("calib_tokens", "rank", "genes", "output_weight", "spectral_weight", "subspace_rank", "extract_steps",
               "extract_lr")


class Masa(Initialiser[MasaParams]):
    def gene_matrices(self, source: Any, inputs: InitInputs) -> list[FFN]:
        """The source's genes: learned on first use, then read from the cache (keyed by the source's weights, the
        calibration tokens and the extraction parameters)."""
        p = self.params
        recipe = {name: getattr(p, name) for name in _EXTRACTION}
        ids = calibration_ids(inputs, p.calib_tokens)
        weights = hashlib.sha256(ids.numpy().tobytes())
        for tensor in source.state_dict().values():
            weights.update(tensor.detach().contiguous().numpy().tobytes())
        key = digest({"weights": weights.hexdigest(), **recipe})[:20]
        root = cache_root(inputs.source.get("cache_dir")) / f"masa-genes-{key}"

        def learn() -> tuple[list[FFN], dict[str, Any]]:
            started = time.perf_counter()
            with torch.enable_grad():
                genes = learn_genes([ffn_of(b) for b in source.model.layers], ffn_inputs(source, ids), p.genes,
                                    p.rank, p.output_weight, p.spectral_weight, p.subspace_rank, p.extract_steps,
                                    p.extract_lr)
            return genes, {"recipe": recipe, "source_sha256": weights.hexdigest(),
                           "extract_wall_s": round(time.perf_counter() - started, 2)}

        def write(staging: Path, learned: tuple[list[FFN], dict[str, Any]]) -> None:
            torch.save([g.matrices() for g in learned[0]], staging / "genes.pt")
            (staging / "training.json").write_text(json.dumps(learned[1], indent=2) + "\n")

        cached_folder(root, TRAINING_THREADS, learn, write)
        return [FFN(*m) for m in torch.load(root / "genes.pt")]

    @torch.no_grad()
    def initialise(self, student: Any, source: Any, inputs: InitInputs, ctx: RunContext) -> Origins:
        p = self.params
        big, small = fitting_shapes(source, student)  # before the genes are learned
        members, chosen = group_layers(big.layers, small.layers, p.genes)
        channels = (evenly(big.hidden, small.hidden) if p.rest == "random"
                    else inherit_rest(student, source, p.genes, p.rest))
        if p.ffn == "random":
            return [members[g] for g in chosen]
        genes = self.gene_matrices(source, inputs)
        for block, g in zip(student.model.layers, chosen, strict=True):
            gene = genes[g]
            neurons = torch.topk(neuron_leverage(gene, p.rank), small.ffn).indices.sort().values
            ffn = reshape_ffn(gene, channels, neurons, p.rank)
            block.mlp.gate_proj.weight.copy_(ffn.gate)
            block.mlp.up_proj.weight.copy_(ffn.up)
            block.mlp.down_proj.weight.copy_(ffn.down)
        return [members[g] for g in chosen]
