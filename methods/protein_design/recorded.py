"""Your own designs (the dataset's `designs_path` CSV, methods.protein_design.byo) scored like every method's."""
from __future__ import annotations

from harness import Method, RunContext
from methods.protein_design.problem import DesignInputs, Designs


class RecordedDesigns(Method):
    def run(self, inputs: DesignInputs, ctx: RunContext) -> Designs:
        if inputs.recorded is None:
            raise ValueError("the dataset has no recorded designs: give the pdb_folder loader designs_path: <CSV>")
        sequences, predicted = {}, {}
        for backbone in inputs.test:
            designs = inputs.recorded.get(backbone.name, ())[: inputs.designs]
            if len(designs) < inputs.designs:
                raise ValueError(f"backbone {backbone.name}: the CSV has {len(designs)} designs, the split asks for "
                                 f"{inputs.designs}")
            sequences[backbone.name] = [d.sequence for d in designs]
            predicted[backbone.name] = [str(d.predicted) if d.predicted else "" for d in designs]
        return Designs(sequences, None, predicted)
