"""The engine beside benchopt and asv on one no-op grid: `python benchmarks/peers/compare_peers.py [--rounds 5]`.

The grid is 10 datasets x 10 method variants x 3 seeds (300 runs) of a method that does nothing worth timing:
the harness's toy `threshold` method, benchopt's `noop` solver (`-r 3`) and asv's `time_noop` (3 repeats), so
every second measured is the tool's own. Each figure is the median wall time of `--rounds` rounds; the tools
take turns within a round, and cold figures start from a fresh copy (no store, cache or results). A peer that is
not installed (`benchopt`, `asv` on PATH) is left out with a line saying so; nothing is installed here.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOY_PLUGIN = HERE.parents[1] / "tests" / "plugins" / "toy_family.py"
STORE = "store on disk, KiB per run"
FIGURES = ("start-up", "3-run subset, cold", "300 runs, cold", "300 runs, all stored (re-run)",
           "report, all formats", "report, md only", STORE)
RUNS = 300


def harness_suite(folder: Path, datasets: int, variants: int) -> Path:
    """The grid as a suite of the toy family, 3 seeds."""
    lines = ["schema_version: 1", "suite: noop", "task: toy.sign", "defaults: {seeds: [0, 1, 2], timeout: 60s}",
             "datasets:"]
    lines += [f"  d{i}: {{loader: numbers, args: {{shift: {i / 10}}}}}" for i in range(datasets)]
    lines += ["metrics: [accuracy]", "methods:",
              f"  thr: {{impl: noop, params: {{t: {[i / 10 for i in range(variants)]}}}}}"]
    path = folder / f"noop_{datasets}x{variants}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def wall(command: list[str], cwd: Path) -> float:
    """Seconds `command` took; its failure stops the comparison with its output."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def disk_kib_per_run(*paths: Path) -> float:
    """What `du` counts for `paths` (files and folders under them), in KiB per run of the grid."""
    files = [p for path in paths for p in ([path] if path.is_file() else [path, *path.rglob("*")]) if p.exists()]
    return sum(p.stat().st_blocks * 512 for p in files) / 1024 / RUNS


def harness_round(work: Path) -> dict[str, float]:
    harness = [sys.executable, "-m", "harness.cli"]
    plugin = ["--plugin", str(TOY_PLUGIN)]
    full, subset = harness_suite(work, 10, 10), harness_suite(work, 1, 1)
    store = ["--store", str(work / "store.sqlite")]
    figures = {
        "start-up": wall([*harness, "plan", str(full), *plugin], work),
        "3-run subset, cold": wall([*harness, "run", str(subset), *plugin, "--store", str(work / "subset.sqlite")],
                                   work),
        "300 runs, cold": wall([*harness, "run", str(full), *plugin, *store], work),
        STORE: disk_kib_per_run(*work.glob("store.sqlite*"), work / "store-runs"),
    }
    return figures | {
        "300 runs, all stored (re-run)": wall([*harness, "run", str(full), *plugin, *store], work),
        "report, all formats": wall([*harness, "report", str(full), *plugin, *store, "--out", str(work / "all"),
                                     "--format", "md,tex,csv,png"], work),
        "report, md only": wall([*harness, "report", str(full), *plugin, *store, "--out", str(work / "md"),
                                 "--format", "md"], work),
    }


def benchopt_round(work: Path) -> dict[str, float]:
    bench = work / "benchopt_noop"
    shutil.copytree(HERE / "benchopt_noop", bench, ignore=shutil.ignore_patterns("__cache__", "outputs"))
    run = ["benchopt", "run", str(bench), "--no-plot", "--no-display", "-r", "3", "-n", "1"]
    figures = {
        "start-up": wall([sys.executable, "-c", "import benchopt"], work),
        "3-run subset, cold": wall([*run, "-d", "noop[shift=0.0]", "-s", "noop[t=0.0]"], work),
    }
    shutil.rmtree(bench / "__cache__", ignore_errors=True)
    shutil.rmtree(bench / "outputs", ignore_errors=True)
    figures["300 runs, cold"] = wall(run, work)
    figures[STORE] = disk_kib_per_run(bench / "__cache__", bench / "outputs")
    figures["300 runs, all stored (re-run)"] = wall(run, work)
    newest = sorted((bench / "outputs").glob("*.parquet"))[-1]
    # benchopt's own default output (an HTML page of every plot) stands beside the harness's full report
    figures["report, all formats"] = wall(["benchopt", "plot", str(bench), "-f", str(newest), "--no-display"], work)
    return figures


def asv_round(work: Path) -> dict[str, float]:
    project = work / "asv_noop"
    shutil.copytree(HERE / "asv_noop", project)
    for step in (["git", "init", "-q"], ["git", "add", "-A"],
                 ["git", "-c", "user.email=peers@localhost", "-c", "user.name=peers", "commit", "-qm", "noop"]):
        subprocess.run(step, cwd=project, check=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project, capture_output=True, text=True).stdout.strip()
    subprocess.run(["asv", "machine", "--yes"], cwd=project, capture_output=True, check=True)
    run = ["asv", "run", "--python=same", "--set-commit-hash", commit]
    figures = {
        "3-run subset, cold": wall([*run, "--bench", "NoopOne"], project),
        "300 runs, cold": wall([*run, "--bench", r"Noop\.time_noop"], project),
    }
    figures[STORE] = disk_kib_per_run(project / "results")
    figures["300 runs, all stored (re-run)"] = wall([*run, "--bench", r"Noop\.time_noop", "--skip-existing"], project)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds per figure; the median is shown")
    args = parser.parse_args(argv)
    tools: dict[str, Callable[[Path], dict[str, float]]] = {"harness": harness_round}
    for name, round_of in (("benchopt", benchopt_round), ("asv", asv_round)):
        if shutil.which(name):
            tools[name] = round_of
        else:
            print(f"{name}: not installed (not on PATH), left out")
    samples: dict[str, dict[str, list[float]]] = {tool: {} for tool in tools}
    for number in range(args.rounds):
        order = list(tools)[number % len(tools):] + list(tools)[:number % len(tools)]
        for tool in order:
            with tempfile.TemporaryDirectory(prefix=f"peers-{tool}-") as work:
                for figure, seconds in tools[tool](Path(work)).items():
                    samples[tool].setdefault(figure, []).append(seconds)
    print(table(samples))
    return 0


def table(samples: dict[str, dict[str, list[float]]]) -> str:
    """Markdown: a row per figure, the median per tool, and the harness's ratio to the fastest peer."""
    peers = [tool for tool in samples if tool != "harness"]
    lines = ["| figure | " + " | ".join(samples) + " | harness / best peer |",
             "|---" * (len(samples) + 2) + "|"]
    for figure in FIGURES:
        medians = {tool: statistics.median(s[figure]) for tool, s in samples.items() if figure in s}
        best_peer = min((medians[p] for p in peers if p in medians), default=None)
        ratio = f"{medians['harness'] / best_peer:.2f}" if best_peer and "harness" in medians else "-"
        cells = [f"{medians[tool]:.2f}" if tool in medians else "-" for tool in samples]
        lines.append(f"| {figure} | " + " | ".join(cells) + f" | {ratio} |")
    rounds = max(len(s) for per_tool in samples.values() for s in per_tool.values())
    lines.append(f"\nwall seconds (the store: KiB on disk per run, as `du` counts), medians of {rounds} rounds; "
                 f"{sys.platform}, Python {sys.version.split()[0]}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
