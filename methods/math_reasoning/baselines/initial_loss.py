"""The student's initial loss on the teacher's data (a GRACE baseline): the mean over the n x m responses of
the per-response mean token NLL, the loss whose gradient GRACE uses. Lower is better as it stands.
"""
from __future__ import annotations

from harness.context import RunContext
from methods.math_reasoning.params import InitialLossParams
from methods.math_reasoning.teacher_scoring import StudentScorer
from methods.math_reasoning.teacher_selection import PoolInputs, TeacherData


class InitialLoss(StudentScorer[InitialLossParams]):
    def score_teacher(self, inputs: PoolInputs, teacher: TeacherData, ctx: RunContext) -> float:
        import torch

        from methods.math_reasoning.sft import IGNORE, Encoded, collate

        model, losses = self.student(inputs), []
        examples = [Encoded(ids, length) for ids, length in teacher.examples]
        with torch.no_grad():
            step = self.params.batch_size
            for start in range(0, len(examples), step):
                ids, mask, labels = collate(examples[start:start + step], pad_id=0)
                logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
                targets = labels[:, 1:]
                nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=IGNORE,
                                                        reduction="none")
                counted = (targets != IGNORE).float()
                losses.append((nll * counted).sum(1) / counted.sum(1))
        return float(torch.cat(losses).mean())
