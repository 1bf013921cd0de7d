"""The local vision-language-model path end to end on a tiny LLaVA checkpoint the test builds and saves (no network):
`hf_vlm` loads the folder as a user's real one, builds each prompt with the chat template, passes the puzzle's
image to the vision tower, generates, writes the predictions files, and the task grades them.

The checkpoint's weights are set, not trained, so its greedy answer is known: a byte-level tokenizer, a CLIP
vision tower and a one-layer Llama whose attention and MLP outputs are zero, so the last hidden state is the
current token's one-hot embedding, and whose output head maps each token of "ASSISTANT>Answer: B" to the next
(then end of text). It answers "Answer: B" whatever the image; the test checks the image reached the model."""
from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

transformers = pytest.importorskip("transformers", reason="needs transformers: pip install -e '.[visual-reasoning]'")
torch = pytest.importorskip("torch", reason="needs torch: pip install -e '.[visual-reasoning]'")
Image = pytest.importorskip("PIL.Image", reason="needs Pillow: pip install -e '.[visual-reasoning]'")

from harness.prediction_files import read_predictions_file  # noqa: E402
from methods.visual_reasoning.data import PuzzleSource, generated  # noqa: E402
from methods.visual_reasoning.export import export  # noqa: E402
from methods.visual_reasoning.hf_vlm import exported_puzzles, main  # noqa: E402
from methods.visual_reasoning.metrics import ACCURACY, ANSWERED  # noqa: E402
from methods.visual_reasoning.task import VisualPuzzles  # noqa: E402

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

TEMPLATE = ("{% for m in messages %}USER: {% for c in m['content'] %}{% if c['type'] == 'image' %}<image>\n"
            "{% else %}{{ c['text'] }}{% endif %}{% endfor %}{{ '\\n' }}{% endfor %}"
            "{% if add_generation_prompt %}ASSISTANT>{% endif %}")
IMAGE_SIZE, PATCH = 32, 8
IMAGE_TOKENS = (IMAGE_SIZE // PATCH) ** 2  # the CLS feature is dropped ("default" strategy)


def _byte_tokenizer() -> PreTrainedTokenizerFast:
    """One token per byte (a byte-level BPE without merges), plus end of text, padding and the image token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={char: i for i, char in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="</s>", pad_token="<pad>",
                                                additional_special_tokens=["<image>"],
                                                model_input_names=["input_ids", "attention_mask"])


def save_tiny_llava(folder: Path, reply: str) -> None:
    """A LLaVA checkpoint (model, processor, chat template) in `folder` whose greedy reply is `reply`, whose
    characters after the template's closing ">" must not repeat (each token has one successor)."""
    tokenizer = _byte_tokenizer()
    chain = tokenizer.encode(">" + reply, add_special_tokens=False) + [tokenizer.eos_token_id]
    assert len(set(chain)) == len(chain), "a repeated character has two successors"
    vocab, hidden = len(tokenizer), 264  # hidden >= vocab: one-hot embeddings; 4 heads of 66
    config = transformers.LlavaConfig(
        vision_config=transformers.CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                                    num_attention_heads=2, image_size=IMAGE_SIZE, patch_size=PATCH),
        text_config=transformers.LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=32,
                                             num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=4,
                                             bos_token_id=None, eos_token_id=tokenizer.eos_token_id,
                                             pad_token_id=tokenizer.pad_token_id),
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"), vision_feature_layer=-1,
        vision_feature_select_strategy="default")
    torch.manual_seed(0)
    model = transformers.LlavaForConditionalGeneration(config)
    with torch.no_grad():
        for name, weight in model.named_parameters():
            if "language_model" in name and name.endswith(("o_proj.weight", "down_proj.weight")):
                weight.zero_()
        model.get_input_embeddings().weight.copy_(torch.eye(vocab, hidden))
        head = model.get_output_embeddings().weight
        head.zero_()
        for token, successor in zip(chain, chain[1:], strict=False):
            head[successor, token] = 1.0
    model.generation_config = transformers.GenerationConfig(eos_token_id=tokenizer.eos_token_id,
                                                            pad_token_id=tokenizer.pad_token_id)
    model.save_pretrained(folder)
    transformers.LlavaProcessor(
        image_processor=transformers.CLIPImageProcessor(size={"shortest_edge": IMAGE_SIZE},
                                                        crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}),
        tokenizer=tokenizer, patch_size=PATCH, num_additional_image_tokens=1,
        vision_feature_select_strategy="default", chat_template=TEMPLATE).save_pretrained(folder)


def test_a_saved_tiny_llava_answers_exported_puzzles_through_the_script_and_is_graded(tmp_path, monkeypatch):
    save_tiny_llava(tmp_path / "model", "Answer: B")
    index = export(PuzzleSource("search", "easy", 3), [0, 1], tmp_path / "set")
    calls = []
    forward = transformers.LlavaForConditionalGeneration.forward

    @functools.wraps(forward)  # generate reads the forward's signature
    def recording(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - what generate passes the model
        if kwargs.get("pixel_values") is not None:  # the first step of each generate call
            calls.append((kwargs["input_ids"][0].tolist(), kwargs["pixel_values"].clone()))
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(transformers.LlavaForConditionalGeneration, "forward", recording)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # the script sets it; monkeypatch restores it afterwards
    out = str(tmp_path / "answers" / "{seed}.jsonl")
    assert main(["--model", str(tmp_path / "model"), "--puzzles", str(index), "--out", out, "--samples", "2",
                 "--max-new-tokens", "16"]) == 0

    puzzles = list(exported_puzzles(index))
    processor = transformers.AutoProcessor.from_pretrained(tmp_path / "model", local_files_only=True)
    assert len(calls) == 2 * len(puzzles)  # a greedy and a sampled answer per puzzle, each with the image
    for (ids, pixels), puzzle in zip(calls[::2], puzzles, strict=True):
        prompt = processor.tokenizer.decode(ids)
        assert prompt == f"USER: {'<image>' * IMAGE_TOKENS}\n{puzzle['prompt']}\nASSISTANT>"
        expected = processor.image_processor(Image.open(puzzle["image"]).convert("RGB"), return_tensors="pt")
        assert torch.equal(pixels, expected["pixel_values"])  # this puzzle's own picture reached the vision tower

    task = VisualPuzzles()
    for seed in (0, 1):
        instance = task.instance(generated("search", "easy", 3), {}, seed)
        path = tmp_path / "answers" / f"{seed}.jsonl"
        table, lines = read_predictions_file(path, task.predictions_schema)
        table = task.checked(instance, table, file=path, lines=lines)
        assert set(table["answer"]) == {"Answer: B"} and (table["score"] < 0).all() and (table["score"] > -1e-3).all()
        share_b = 100 * sum(p.answer == "B" for p in instance.truth.values()) / 3
        assert task.score(instance, table, {"accuracy": ACCURACY, "answered": ANSWERED}) == pytest.approx({
            "accuracy": share_b, "answered": 100.0})
