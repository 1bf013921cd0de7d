"""A model as a method: generate solutions to a problem set through the harness or through lm-eval.

`backend: harness` generates with `generation.generate` (greedy, or k samples at a temperature); `backend:
lm_eval` writes the problems as a local lm-eval task (`lm_eval_bridge.write_task`, the family's prompt,
zero-shot, greedy) and runs lm-eval's own `hf` backend on the model folder. Either way the task scores the
generations with the harness scorer; the lm-eval run also records lm-eval's own exact_match and
math_verify accuracies and how often its math_verify verdict agrees with the harness scorer's, sample by
sample. Both backends see the same prompts and stop at the same places: a continuation is cut where it
starts a new "### Problem" (lm-eval's `until`, applied to the harness's text after the fact) or at eos,
and a question too long for the model's positions is cut from the left before either backend sees it
(lm-eval would cut the prompt's own header instead; GPT-2 cannot run past its positions at all).
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import DataError, Method
from harness.context import RunContext
from harness.model_cache import model_folder
from methods.math_reasoning.evaluation import EvaluationOutput, ProblemSet
from methods.math_reasoning.params import ModelEvaluationParams
from methods.math_reasoning.sft import PROMPT, prompt_text
from methods.math_reasoning.tiny_model import StudentConfig

STOP = "### Problem"  # the family's prompt header: a continuation that starts a new problem has ended
LM_EVAL_PROMPT = PROMPT.replace("{question}", "{{question}}")  # the same text as a Jinja template
LM_EVAL_TASK = "math_model_eval"
LM_EVAL_EXACT_MATCH = {"lm_eval_exact_match": "exact_match,flexible-extract",  # GSM8K's last-number rule
                       "lm_eval_exact_match_final": "exact_match,final-answer"}  # Minerva's final-answer rule


def fit_questions(questions: Sequence[str], tokenizer: Any, max_positions: int | None,
                  max_new_tokens: int) -> tuple[list[str], int]:
    """The questions, each cut from the left until its prompt leaves `max_new_tokens` positions free;
    and how many were cut."""
    if max_positions is None:
        return list(questions), 0

    def length(text: str) -> int:
        return len(tokenizer(prompt_text(text), add_special_tokens=False)["input_ids"])

    budget = max_positions - max_new_tokens
    if budget <= length(""):
        raise DataError(f"max_new_tokens {max_new_tokens} leaves no room for a prompt in the model's "
                        f"{max_positions} positions", field="max_new_tokens")
    fitted, cut = [], 0
    for question in questions:
        text = question
        while (excess := length(text) - budget) > 0:
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            text = tokenizer.decode(ids[excess:], skip_special_tokens=True)
        cut += text != question
        fitted.append(text)
    return fitted, cut


def _max_positions(folder: Path) -> int | None:
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    return getattr(config, "max_position_embeddings", None)  # GPT-2 maps it to n_positions


class ModelEvaluation(Method[ModelEvaluationParams]):
    """One model, decoded one way: greedy pass@1 (temperature 0) or average-at-k over `samples` samples."""

    def model_folder(self) -> Path:
        """`{path: DIR}` as given, else the family's tiny student (`tiny_model.prepare`, trained on first use)."""
        from methods.math_reasoning import tiny_model

        folder = model_folder(self.params.model or {}, tiny_model.prepare, StudentConfig)
        if not folder.is_dir():
            raise DataError("model folder does not exist", file=folder, field="model.path",
                            hint="Give a folder written by save_pretrained (config.json, weights, tokenizer).")
        return folder

    def run(self, inputs: ProblemSet, ctx: RunContext) -> EvaluationOutput:
        from methods.common.hf_models import prepare_model

        for skipped in inputs.skipped:
            ctx.log.warning("problem set %s: skipped %s:%d: %s", inputs.name, inputs.file, skipped.line,
                            skipped.reason)
        ctx.record("skipped_lines", len(inputs.skipped))
        ctx.record("problems", len(inputs.problems))
        with tempfile.TemporaryDirectory(prefix="model-eval-") as scratch:
            # The bridge's check of the tokenizer serves both backends: no tokenizer files is a DataError,
            # a missing eos (bos, pad) is set from the vocabulary in a view of the folder.
            prepared = prepare_model(self.model_folder(), Path(scratch))
            if prepared.patched:
                ctx.log.warning("tokenizer lacked special tokens; set %s", prepared.patched)
            ctx.record("patched_special_tokens", len(prepared.patched))
            if self.params.backend == "harness":
                return self._harness(prepared.path, inputs, ctx)
            return self._lm_eval(prepared.path, inputs, ctx, Path(scratch))

    def _fit(self, folder: Path, tokenizer: Any, inputs: ProblemSet, ctx: RunContext) -> list[str]:
        questions, cut = fit_questions([p.question for p in inputs.problems], tokenizer, _max_positions(folder),
                                       self.params.max_new_tokens)
        ctx.record("truncated_prompts", cut)
        if cut:
            ctx.log.warning("%d questions cut from the left to fit the model's positions", cut)
        return questions

    def _speed(self, ctx: RunContext, tokenizer: Any, problems: int, texts: Sequence[str], seconds: float) -> None:
        """problems/s and tokens/s of the returned (stop-cut) generations, per second of the backend's wall
        time, model loading included: the same definition for both backends."""
        tokens = sum(len(ids) for ids in tokenizer(list(texts), add_special_tokens=False)["input_ids"])
        ctx.record("backend_s", seconds, "s", higher_is_better=False)
        ctx.record("problems_per_s", problems / seconds, "1/s", higher_is_better=True)
        ctx.record("generated_tokens_per_s", tokens / seconds, "1/s", higher_is_better=True)

    def _harness(self, folder: Path, inputs: ProblemSet, ctx: RunContext) -> EvaluationOutput:
        from methods.math_reasoning import tiny_model
        from methods.math_reasoning.generation import Decoding, generate

        started = time.perf_counter()
        model, tokenizer = tiny_model.load(folder)  # generation.generate keeps its tensors on the CPU
        questions = self._fit(folder, tokenizer, inputs, ctx)
        p = self.params
        k = p.samples
        # k copies of each question in one call fill the batches; the seed draws every sample.
        out = generate(model, tokenizer, [q for q in questions for _ in range(k)],
                       Decoding(p.temperature, p.max_new_tokens, p.batch_size), seed=ctx.seed)
        texts = [text.split(STOP)[0] for text in out.texts]
        self._speed(ctx, tokenizer, len(questions), texts, time.perf_counter() - started)
        ctx.record("generation_s", out.seconds, "s", higher_is_better=False)
        return EvaluationOutput([texts[i * k:(i + 1) * k] for i in range(len(questions))])

    def _lm_eval(self, folder: Path, inputs: ProblemSet, ctx: RunContext, scratch: Path) -> EvaluationOutput:
        from transformers import AutoTokenizer

        from methods.math_reasoning.answers import check_answer
        from methods.math_reasoning.lm_eval_bridge import evaluate, write_task
        from methods.math_reasoning.problems import write_jsonl

        started = time.perf_counter()
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        questions = self._fit(folder, tokenizer, inputs, ctx)
        problems = [dataclasses.replace(p, question=q) for p, q in zip(inputs.problems, questions, strict=True)]
        task = write_task(write_jsonl(problems, scratch / "problems.jsonl"), scratch / "tasks", LM_EVAL_TASK,
                          prompt=LM_EVAL_PROMPT, max_gen_toks=self.params.max_new_tokens, until=(STOP,))
        run = evaluate(folder, scratch / "tasks", [task.tag], batch_size=self.params.batch_size, device=ctx.device)
        generations: dict[int, str] = {}
        verdicts: dict[int, float] = {}
        exact_match_texts: dict[int, str] = {}
        for record in run["samples"]:
            if record["task"] == task.math_verify_task:
                generations[record["doc_id"]] = record["generation"]
                verdicts[record["doc_id"]] = record["metrics"]["math_verify"]
            else:
                exact_match_texts[record["doc_id"]] = record["generation"]
        texts = [generations[i] for i in range(len(problems))]
        # lm-eval generates once per task; greedy decoding should make the two tasks' texts identical.
        mismatches = sum(exact_match_texts.get(i) != t for i, t in enumerate(texts))
        ctx.record("lm_eval_task_mismatch", mismatches, higher_is_better=False)
        checks = [check_answer(p.answer, t) for p, t in zip(problems, texts, strict=True)]
        self._speed(ctx, tokenizer, len(problems), texts, time.perf_counter() - started)
        ctx.record("lm_eval_seconds", run["seconds"], "s", higher_is_better=False)
        metrics = run["metrics"]
        ctx.record("lm_eval_math_verify", 100.0 * metrics[task.math_verify_task]["math_verify,none"], "%",
                   higher_is_better=True)
        for name, key in LM_EVAL_EXACT_MATCH.items():
            ctx.record(name, 100.0 * metrics[task.exact_match_task][key], "%", higher_is_better=True)
        ctx.record("harness_accuracy", 100.0 * sum(c.correct for c in checks) / len(checks), "%", higher_is_better=True)
        agree = sum(float(c.correct) == verdicts[i] for i, c in enumerate(checks))
        ctx.record("agreement", 100.0 * agree / len(checks), "%", higher_is_better=True)
        return EvaluationOutput([[t] for t in texts], [[c] for c in checks])
