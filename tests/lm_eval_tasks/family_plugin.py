"""Registers the lm_eval_tasks family for CLI runs in tests where the package's entry point is not installed."""
import methods.lm_eval_tasks  # noqa: F401
