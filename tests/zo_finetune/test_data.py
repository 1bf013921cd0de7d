"""Prompts, the JSONL loader, the generated tasks and the option-scoring objective."""
from __future__ import annotations

import json

import numpy as np
import pytest

from harness import DataError
from methods.zo_finetune import synthetic
from methods.zo_finetune.prompts import TEMPLATES, load_jsonl


def write_jsonl(path, rows) -> str:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return str(path)


def test_mezo_templates_render_the_published_prompts():
    assert TEMPLATES["sst2"].render({"sentence": "a gripping film ."}) == "a gripping film . It was"
    assert TEMPLATES["rte"].render({"premise": "P .", "hypothesis": "H"}) == \
        'P .\nDoes this mean that "H" is true? Yes or No?\n'
    assert TEMPLATES["cb"].options == ("Yes", "No", "Maybe")
    assert TEMPLATES["boolq"].render({"passage": "P .", "question": "is it"}) == "P . is it?"


def test_glue_format_jsonl_loads_with_its_label_names(tmp_path):
    path = write_jsonl(tmp_path / "rte.jsonl", [
        {"premise": "A .", "hypothesis": "B", "label": "entailment"},
        {"premise": "C .", "hypothesis": "D", "label": "not_entailment"},
    ])
    examples = load_jsonl(path, "rte")
    assert [e.label for e in examples] == [0, 1] and examples[0].options == ("Yes", "No")



def test_boolq_labels_load_as_booleans_integers_or_words(tmp_path):
    rows = [{"passage": "P .", "question": "q", "label": label} for label in (False, True, 0, 1, "False", "TRUE")]
    assert [e.label for e in load_jsonl(write_jsonl(tmp_path / "boolq.jsonl", rows), "boolq")] == [0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("rows, message", [
    (['{"sentence": "x", "label": 1}', "{not json"], r"sst2.jsonl:2: not valid JSON"),
    ([{"sentence": "x"}], r"sst2.jsonl:1: missing field 'label'"),
    ([{"text": "x", "label": 1}], r"missing field 'sentence'"),
    ([{"sentence": "x", "label": 7}], r"label 7 is not one of"),
    (["[1, 2]"], "each line must be a JSON object"),
    ([""], "the file has no examples"),
])
def test_bad_jsonl_names_file_line_and_field(tmp_path, rows, message):
    with pytest.raises(DataError, match=message):
        load_jsonl(write_jsonl(tmp_path / "sst2.jsonl", rows), "sst2")


def test_unknown_task_and_missing_file_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown prompt task 'mnli'"):
        load_jsonl(tmp_path / "x.jsonl", "mnli")
    with pytest.raises(DataError, match="no such file"):
        load_jsonl(tmp_path / "absent.jsonl", "sst2")


@pytest.mark.parametrize("task", sorted(synthetic.GENERATORS))
def test_generated_tasks_are_balanced_deterministic_and_shifted(task):
    examples = synthetic.examples(task, 600, seed=3)
    assert examples == synthetic.examples(task, 600, seed=3)
    counts = np.bincount([e.label for e in examples], minlength=len(examples[0].options)) / len(examples)
    assert counts.min() > 0.8 / len(counts)
    assert 0.6 < synthetic.rule_agreement(task) < 0.95  # the target rule moves some labels, not all


def test_sst2_rules_are_thresholds_of_the_valence_sum():
    for text in synthetic.labelled_texts("sst2", 200, seed=0):
        words = text.fields["sentence"].replace(",", " ").replace(".", " ").split()
        score = sum(synthetic.VALENCES.get(w, 0) for w in words)
        assert text.labels == {"pretrain": int(score > 0), "target": int(score > 2)}


def test_every_generated_word_is_in_the_vocabulary(tokenizer):
    for task in synthetic.GENERATORS:
        for example in synthetic.examples(task, 50, seed=1):
            assert tokenizer.unk_token_id not in tokenizer(example.prompt)["input_ids"]


def test_option_scores_match_a_per_option_forward_pass(tiny_model, tokenizer):
    torch = pytest.importorskip("torch")
    from methods.zo_finetune.objective import OptionScorer

    scorer = OptionScorer(tokenizer)
    data = scorer.encode(synthetic.examples("cb", 4, seed=0))
    fast = scorer.option_scores(tiny_model, data, range(4))
    for i in range(4):
        ids = torch.tensor([data.prompts[i]])
        logprobs = tiny_model(input_ids=ids).logits[0, -1].log_softmax(-1)
        expected = torch.stack([logprobs[option[0]] for option in data.options[i]])
        torch.testing.assert_close(fast[i], expected, atol=1e-4, rtol=1e-4)


def test_multi_token_options_use_the_mean_token_log_likelihood(tiny_model, tokenizer):
    torch = pytest.importorskip("torch")
    from methods.zo_finetune.objective import OptionScorer
    from methods.zo_finetune.prompts import PromptExample

    example = PromptExample("the film was good . It was", ("great", "great terrible"), 0)
    scorer = OptionScorer(tokenizer)
    data = scorer.encode([example])
    scores = scorer.option_scores(tiny_model, data, [0])
    ids = torch.tensor([data.prompts[0] + data.options[0][1]])
    logprobs = tiny_model(input_ids=ids).logits[0, :-1].log_softmax(-1)
    start = len(data.prompts[0]) - 1
    expected = torch.stack([logprobs[start + k, ids[0, start + k + 1]] for k in range(2)]).mean()
    torch.testing.assert_close(scores[0, 1], expected, atol=1e-4, rtol=1e-4)


def test_an_option_outside_the_vocabulary_is_a_clear_error(tokenizer):
    from methods.zo_finetune.objective import OptionScorer
    from methods.zo_finetune.prompts import PromptExample

    with pytest.raises(DataError, match="option word 'splendid' is not in the model's vocabulary"):
        OptionScorer(tokenizer).encode([PromptExample("it was", ("splendid", "great"), 0)])
