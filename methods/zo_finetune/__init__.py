"""Zeroth-order fine-tuning of quantized LLMs (QZO, ICLR 2026) against MeZO, SGD/AdamW fine-tuning, LoRA and
QLoRA: registrations only."""
from harness.registry import datasets, methods, metrics, tasks

C = "zo_finetune.classification"
M = "zo_finetune.memory"
BOTH = (C, M)  # every method fine-tunes on a task, or reports its memory for a model
tasks.add(C, "methods.zo_finetune.task:PromptClassification",
          "adapt a model on a prompt-classification task (MeZO's SST-2/RTE/CB/BoolQ prompts, option scoring); "
          "test accuracy of the best-on-dev learning rate")
tasks.add(M, "methods.zo_finetune.memory_task:ModelMemory",
          "bytes of weights, gradients, optimizer states per method: analytic for a published config, "
          "measured too for a model folder (a few training steps at batch 1)")
datasets.add("zo_finetune.prompt_task", "methods.zo_finetune.task:prompt_task",
             "a generated SST-2/RTE/CB/BoolQ-format task with a shifted target rule (1,000/500/1,000 examples), "
             "and the model: the family's tiny Llama or OPT (pre-trained on first use) or {path: DIR}")
datasets.add("zo_finetune.jsonl", "methods.zo_finetune.task:jsonl_task",
             "a user's GLUE/SuperGLUE JSONL files (train, dev, test paths) of sst2, rte, cb or boolq, and a model")
datasets.add("zo_finetune.model_memory", "methods.zo_finetune.memory_task:model_memory",
             "a published config (opt-6.7b, llama-2-7b, llama-2-13b, llama-3.1-8b; analytic) or a model "
             "mapping as in prompt_task (analytic and measured)")
metrics.add("zo_finetune.accuracy", "methods.zo_finetune.metrics:ACCURACY",
            "test accuracy of option scoring, x100")
metrics.add("zo_finetune.macro_f1", "methods.zo_finetune.metrics:MACRO_F1",
            "macro-averaged F1 over the classes, x100")
for _name in ("analytic_total_gb", "analytic_weights_gb", "analytic_gradients_gb", "analytic_optimizer_gb",
              "analytic_extra_gb", "analytic_total_mb", "trainable_params", "measured_tensor_mb",
              "measured_weights_mb", "measured_gradients_mb", "measured_optimizer_mb"):
    metrics.add(f"zo_finetune.{_name}", f"methods.zo_finetune.memory_task:{_name.upper()}",
                f"memory: {_name.replace('_', ' ')}")

_P = "methods.zo_finetune.params"  # parameter models, torch-free: validating a suite reads only them
methods.add("zo_finetune.qzo", "methods.zo_finetune.qzo:QZO",
            "QZO (Shang et al., ICLR 2026): SPSA on the quantization scales with directional-derivative clipping",
            task=BOTH, params=f"{_P}:QZOParams")
methods.add("zo_finetune.mezo", "methods.zo_finetune.baselines.mezo:MeZO",
            "MeZO (Malladi et al., NeurIPS 2023): SPSA with in-place seeded perturbation of every weight", task=BOTH,
            params=f"{_P}:MeZOParams")
methods.add("zo_finetune.finetune", "methods.zo_finetune.baselines.finetune:FineTune",
            "full fine-tuning by back-propagation with SGD (the paper's upper bound) or AdamW", task=BOTH,
            params=f"{_P}:FineTuneParams")
methods.add("zo_finetune.lora", "methods.zo_finetune.baselines.lora:LoRA",
            "LoRA through peft (rank 8, alpha 16, q_proj/v_proj); quantized: true is QLoRA on the 4-bit base",
            task=BOTH, params=f"{_P}:LoRAParams")
methods.add("zo_finetune.zero_shot", "methods.zo_finetune.baselines.zero_shot:ZeroShot",
            "the pre-trained model prompted without training; quantized: true is Zero-Shot-Q", task=BOTH,
            params=f"{_P}:QuantizationParams")
