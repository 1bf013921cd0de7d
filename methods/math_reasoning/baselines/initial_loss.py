"""The student's initial loss on the teacher's data (a GRACE baseline): the mean over the n x m responses of
the per-response mean token NLL, the loss whose gradient GRACE uses. Lower is better as it stands.
"""
from __future__ import annotations

from harness.context import RunContext
from methods.math_reasoning.teacher_scoring import StudentScorer
from methods.math_reasoning.teacher_selection import PoolInputs, TeacherData


class InitialLoss(StudentScorer):
    def __init__(self, batch_size: int = 64) -> None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.batch_size = batch_size

    def score_teacher(self, inputs: PoolInputs, teacher: TeacherData, ctx: RunContext) -> float:
        import torch

        from methods.math_reasoning.sft import IGNORE, Encoded, collate

        model, losses = self.student(inputs), []
        examples = [Encoded(ids, length) for ids, length in teacher.examples]
        with torch.no_grad():
            for start in range(0, len(examples), self.batch_size):
                ids, mask, labels = collate(examples[start:start + self.batch_size], pad_id=0)
                logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
                targets = labels[:, 1:]
                nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=IGNORE,
                                                        reduction="none")
                counted = (targets != IGNORE).float()
                losses.append((nll * counted).sum(1) / counted.sum(1))
        return float(torch.cat(losses).mean())
