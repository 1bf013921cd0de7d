"""A tiny Llama trained on CPU to solve the family's RULER tasks, so that its heads have real retrieval structure.

Sparse prefill attention is only worth measuring on heads that retrieve; random weights attend almost
uniformly. `prepare` trains a small `LlamaForCausalLM` (grouped-query attention, RoPE) on `ruler.py`'s four
tasks from scratch and caches it as an ordinary Hugging Face folder (model and tokenizer, loadable offline
with `from_pretrained(path)`), plus `training.json` with the recipe, the wall time and its dense accuracy.

Recipe (the small-scale analogue of how long-context retrieval emerges from induction heads): a word-level
vocabulary of about 2,250 words, tied embeddings, RoPE with a base of 1e7 (three of a head's eight frequency
pairs turn less than 0.4 rad over 8K tokens, so matching by content does not depend on distance).
1. Induction warm-up: random words, then a random string twice, loss on the repeat (Olsson et al., 2022),
   to build the copying circuit (previous-token head + induction head) that every task needs. Short
   sequences in large batches (48 tokens x 64) at a constant learning rate: the circuit forms in a phase
   change near step 1,000 (repeat loss 7.1 -> 0.3 between steps 900 and 1,300, measured). With 128-token
   sequences in batches of 32 it stayed at chance for 2,000 steps, and under a rate decaying over the
   stage the loss was still 6.3 at step 1,300.
2. Curriculum over context lengths, short first, the four tasks taking turns batch by batch (one task a batch
   keeps padding small), two repeated-string batches of the stage's length (at most 1,024) a round. Those
   carry the copying circuit to longer distances: the 48-token circuit did not reach 256 tokens (repeat
   loss 10.9 on the first 256-token batches), re-formed there within 150 steps, and niah_single left chance
   with it (answer loss 0.4 after 200 steps). Two runs whose repeated strings kept the warm-up's 48 tokens
   stayed at chance on every task (answer loss 1.86, the digits at ln 10) for 600 curriculum steps and
   more, though three runs from another 48-token warm-up left chance with them: without the long repeats
   whether the circuit transfers is luck (all measured). Teacher forcing on `prompt + answer`; cross-entropy
   on the answer tokens (and the EOS after each), plus 0.5 x the mean over the other tokens except the
   random filler words, whose loss is irreducible. Each context also carries its follow-up questions
   (`RulerSample.other_queries`), several supervised answers a context at little cost. The curriculum
   stops at 1,024 tokens: further stages of 2,048 and 4,096 tokens (batch 1, 240 steps each) put every task
   back at chance at every length, 512 included (measured). The model does not retrieve past its training
   length (an earlier run: niah_single answer loss 0.0 at 1,024, 4.1 at 2,048); `training.json` records
   its dense accuracy up to 4,096.
Each stage starts a new AdamW and warms its learning rate up linearly; each curriculum stage then decays it
by a cosine to a tenth.

The recipe's dense accuracy per task and length, and its wall time, are written to `training.json`; the
family README quotes them.
"""
from __future__ import annotations

import logging
import math
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.model_cache import TRAINING_THREADS, TrainedModel, cached_model, recipe_folder
from methods.common.hf_tiny_lm import SPECIAL_TOKENS, word_level_tokenizer
from methods.sparse_attention import ruler

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingConfig:
    """Everything that changes the trained weights; its hash names the cache folder.

    `curriculum` is a sequence of `(context_length, batch_size, steps)` stages of the RULER tasks, run in
    order after `induction_warmup`, a stage of repeated random strings alone at `warmup_learning_rate`;
    during the curriculum every `len(tasks) + repeated_tokens_turns` steps take one batch of each task and
    `repeated_tokens_turns` of repeated strings, of the stage's length and batch size up to
    `repeated_tokens_max_length` tokens (`_repeat_shape`).
    """

    hidden_size: int = 128
    intermediate_size: int = 256
    num_layers: int = 4
    num_heads: int = 8
    num_kv_heads: int = 2
    head_dim: int = 16
    rope_theta: float = 10_000_000.0
    max_position_embeddings: int = 8192
    curriculum: tuple[tuple[int, int, int], ...] = ((256, 8, 600), (512, 4, 600), (1024, 2, 300))
    induction_warmup: tuple[int, int, int] = (48, 64, 1400)
    repeated_tokens_turns: int = 2
    repeated_tokens_max_length: int = 1024
    context_loss_weight: float = 0.5
    warmup_learning_rate: float = 3e-3
    learning_rate: float = 1e-3
    warmup_steps: int = 30
    weight_decay: float = 0.01
    tasks: tuple[str, ...] = tuple(ruler.TASKS)
    eval_lengths: tuple[int, ...] = (512, 1024, 2048, 4096)
    eval_samples: int = 6
    version: int = 2

    @property
    def steps(self) -> int:
        return sum(steps for _, _, steps in self.stages)

    @property
    def stages(self) -> tuple[tuple[int, int, int], ...]:
        return (self.induction_warmup, *self.curriculum)


def build_tokenizer():  # -> PreTrainedTokenizerFast
    """The word-level tokenizer of `ruler.vocabulary()`: whitespace split, one id a word, BOS prepended."""
    from tokenizers import pre_tokenizers

    return word_level_tokenizer(ruler.vocabulary(), pre_tokenizers.WhitespaceSplit())


def build_model(config: TrainingConfig, tokenizer):  # -> LlamaForCausalLM
    from transformers import LlamaConfig, LlamaForCausalLM

    model_config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=config.hidden_size, intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers, num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_kv_heads, head_dim=config.head_dim, rope_theta=config.rope_theta,
        max_position_embeddings=config.max_position_embeddings, tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, attn_implementation="sdpa")
    return LlamaForCausalLM(model_config)


def training_sequence(sample: ruler.RulerSample, tokenizer) -> tuple[list[int], list[int]]:
    """Token ids of the prompt, its answer and the follow-up questions with theirs, and the positions whose
    next token is supervised (each answer token and the EOS closing the answer)."""
    ids = tokenizer.encode(sample.prompt)
    targets: list[int] = []
    for i, (question, answers) in enumerate([("", sample.answers), *sample.other_queries]):
        if i:
            ids += tokenizer.encode(question, add_special_tokens=False)
        answer = tokenizer.encode(" ".join(answers), add_special_tokens=False) + [tokenizer.eos_token_id]
        targets += range(len(ids) - 1, len(ids) - 1 + len(answer))
        ids += answer
    return ids, targets


def _batch(task: str, tokenizer, rng: random.Random, length: int, size: int):
    """`size` fresh samples of one task: one task a batch keeps the padding small (kv_retrieval's follow-up
    questions make its sequences longer than the others')."""
    import torch

    sequences = [training_sequence(ruler.TASKS[task](length, rng.randrange(2**31)), tokenizer) for _ in range(size)]
    width = max(len(ids) for ids, _ in sequences)
    # Right padding needs no attention mask: under the causal mask no real token attends to a later pad.
    input_ids = torch.full((size, width), tokenizer.pad_token_id, dtype=torch.long)
    for row, (ids, _) in enumerate(sequences):
        input_ids[row, :len(ids)] = torch.tensor(ids)
    answer = torch.zeros(size, width, dtype=torch.bool)
    for row, (_, targets) in enumerate(sequences):
        answer[row, targets] = True
    # Every next token but the random filler words (and padding) is supervised: the templates repeat the key
    # and the value within the question, which rewards copying from context before any answer is right.
    following = torch.cat([input_ids[:, 1:], torch.full((size, 1), tokenizer.pad_token_id)], dim=1)
    unpredictable = torch.isin(following, torch.tensor(_filler_ids(tokenizer) + [tokenizer.pad_token_id]))
    return input_ids, answer, ~unpredictable | answer, following


def _repeated_tokens_batch(tokenizer, rng: random.Random, length: int, size: int):
    """The classic induction-head curriculum (Olsson et al., 2022): random words, then a random string twice;
    every token of the repeat is supervised, so copying from context pays on a large share of the tokens. The
    string's length is drawn per row: with a fixed one, a head attending a fixed distance back solves the
    repeat by position alone, and that fails as soon as the distance changes (measured here: repeat loss 0.2
    at the warm-up's length, 9 at the next stage's)."""
    import torch

    first_word, words = len(SPECIAL_TOKENS), len(tokenizer) - len(SPECIAL_TOKENS)
    input_ids = torch.full((size, length), tokenizer.bos_token_id)
    answer = torch.zeros(size, length, dtype=torch.bool)
    for row in range(size):
        half = rng.randint(length // 8, (length - 1) // 2)
        prefix = length - 1 - 2 * half
        string = [first_word + rng.randrange(words) for _ in range(half)]
        noise = [first_word + rng.randrange(words) for _ in range(prefix)]
        input_ids[row, 1:] = torch.tensor(noise + string + string)
        answer[row, prefix + half + 1:-1] = True
    following = torch.cat([input_ids[:, 1:], torch.full((size, 1), tokenizer.pad_token_id)], dim=1)
    return input_ids, answer, answer, following


def _repeat_shape(config: TrainingConfig, length: int, size: int) -> tuple[int, int]:
    """A stage's repeated strings: its length and batch, but past `repeated_tokens_max_length` that many tokens
    a row in proportionally more rows. Repeats of 2,048 tokens wiped out the circuit (repeat loss 0.1 -> 8.6,
    every task back at chance within 50 steps, measured)."""
    if length <= config.repeated_tokens_max_length:
        return length, size
    return config.repeated_tokens_max_length, size * length // config.repeated_tokens_max_length


def _filler_ids(tokenizer) -> list[int]:
    return tokenizer.convert_tokens_to_ids(list(ruler.FILLER_WORDS))


def _learning_rate(config: TrainingConfig, stage: int, stage_step: int) -> float:
    """The warm-up stage's constant rate (the phase change came later under a decaying one), then per
    curriculum stage a linear warm-up and a cosine decay to a tenth: without the warm-up the first RULER
    batches after the induction warm-up wiped out the copying circuit (repeat loss 0.5 -> 9.3 within 25
    steps)."""
    warm = min(1.0, (stage_step + 1) / config.warmup_steps)
    if stage == 0:
        return config.warmup_learning_rate * warm
    steps = config.stages[stage][2]
    progress = stage_step / max(steps - 1, 1)
    return config.learning_rate * warm * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def _loss(model, config: TrainingConfig, batch) -> tuple:
    """The training objective and, for the log, the mean loss of the answer tokens alone."""
    import torch

    input_ids, answer, supervised, following = batch
    hidden = model.model(input_ids=input_ids).last_hidden_state
    token_loss = torch.nn.functional.cross_entropy(model.lm_head(hidden[supervised]), following[supervised],
                                                   reduction="none")
    is_answer = answer[supervised]
    answer_loss = token_loss[is_answer].mean()
    if is_answer.all():
        return answer_loss, answer_loss.item()
    return answer_loss + config.context_loss_weight * token_loss[~is_answer].mean(), answer_loss.item()


def train(config: TrainingConfig, seed: int, tokenizer) -> tuple:
    """The trained model and each turn's mean answer-token loss over the last stage's final 20 % of steps."""
    import torch

    torch.manual_seed(seed)
    rng = random.Random(f"train:{seed}")
    model = build_model(config, tokenizer)
    model.train()
    step = 0
    losses: dict[str, list[float]] = {}
    for stage, (length, size, steps) in enumerate(config.stages):
        optimizer = torch.optim.AdamW(model.parameters(), weight_decay=config.weight_decay, betas=(0.9, 0.98))
        turns = ([*config.tasks, *["repeated_tokens"] * config.repeated_tokens_turns] if stage
                 else ["repeated_tokens"])  # one turn a step, in order
        losses = {turn: [] for turn in turns}
        for stage_step in range(steps):
            turn = turns[step % len(turns)]
            batch = (_repeated_tokens_batch(tokenizer, rng, *_repeat_shape(config, length, size))
                     if turn == "repeated_tokens" else _batch(turn, tokenizer, rng, length, size))
            for group in optimizer.param_groups:
                group["lr"] = _learning_rate(config, stage, stage_step)
            loss, answer_loss = _loss(model, config, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses[turn].append(answer_loss)
            step += 1
            if step % 25 == 0:
                log.info("step %d/%d length %d answer loss %s", step, config.steps, length,
                         " ".join(f"{t}={sum(v[-5:]) / len(v[-5:]):.2f}" for t, v in losses.items() if v))
    model.eval()
    tails = {turn: values[-max(len(values) // 5, 1):] for turn, values in losses.items()}
    return model, {turn: sum(tail) / len(tail) for turn, tail in tails.items() if tail}


def generate_answer(model, tokenizer, prompt: str, max_new_tokens: int) -> str:
    """Greedy continuation of `prompt` up to `max_new_tokens` tokens or EOS, decoded without special tokens."""
    import torch

    input_ids = torch.tensor([tokenizer.encode(prompt)])
    with torch.no_grad():
        output = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=max_new_tokens,
                                do_sample=False, eos_token_id=tokenizer.eos_token_id,
                                pad_token_id=tokenizer.pad_token_id)
    return tokenizer.decode(output[0, input_ids.shape[1]:], skip_special_tokens=True)


def answer_budget(sample: ruler.RulerSample, tokenizer) -> int:
    """Tokens to generate for a sample: its answer's length and two spare (RULER fixes one per task)."""
    return len(tokenizer.encode(" ".join(sample.answers), add_special_tokens=False)) + 2


def dense_accuracy(model, tokenizer, tasks: tuple[str, ...], lengths: tuple[int, ...], samples: int,
                   seed: int) -> dict[str, dict[int, float]]:
    """Mean `string_match_all` per task and context length on samples the training never drew."""
    accuracy: dict[str, dict[int, float]] = {}
    for task in tasks:
        for length in lengths:
            scores = [ruler.score_sample(generate_answer(model, tokenizer, s.prompt, answer_budget(s, tokenizer)),
                                         s.answers)
                      for s in ruler.generate(task, length, samples, seed=10_000 + seed)]
            accuracy.setdefault(task, {})[length] = sum(scores) / len(scores)
            log.info("dense %s @ %d: %.2f", task, length, accuracy[task][length])
    return accuracy


def model_dir(config: TrainingConfig, seed: int, cache_dir: str | Path | None = None,
              num_threads: int = TRAINING_THREADS) -> Path:
    """`<cache>/tiny-llama-<hash>/` under `harness.model_cache.cache_root(cache_dir)`."""
    return recipe_folder("tiny-llama", config, seed, num_threads, cache_dir)


def prepare(cache_dir: str | Path | None = None, seed: int = 0, config: TrainingConfig = TrainingConfig(),
            num_threads: int = TRAINING_THREADS) -> Path:
    """The folder of the model trained with `config` and `seed` on `num_threads` torch threads, trained and
    written there first if absent.

    `harness.model_cache.cached_model` trains it once and publishes it, so racing workers wait for one
    training and never see half a folder. The thread count is part of the recipe (hashed into the folder's
    name): other counts round the training's reductions otherwise and give other weights.
    """
    return cached_model(model_dir(config, seed, cache_dir, num_threads), num_threads,
                        lambda: _trained(config, seed, num_threads))


def _trained(config: TrainingConfig, seed: int, num_threads: int) -> TrainedModel:
    """The model trained on the RULER tasks, its tokenizer, and its record (with its dense accuracy)."""
    started, started_cpu = time.perf_counter(), time.process_time()
    tokenizer = build_tokenizer()
    model, final_loss = train(config, seed, tokenizer)
    train_s, train_cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
    accuracy = dense_accuracy(model, tokenizer, config.tasks, config.eval_lengths, config.eval_samples, seed)
    record = {"config": asdict(config), "seed": seed, "steps": config.steps, "train_wall_s": round(train_s, 1),
              "train_cpu_s": round(train_cpu_s, 1),
              "total_wall_s": round(time.perf_counter() - started, 1), "torch_threads": num_threads,
              "final_answer_loss": final_loss, "dense_accuracy": accuracy,
              "parameters": sum(p.numel() for p in model.parameters())}
    return model, tokenizer, record
