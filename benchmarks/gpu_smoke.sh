#!/usr/bin/env bash
# GPU smoke check: the CUDA path end to end on one GPU, in under 10 minutes. Run it from any folder on a
# CUDA machine with the sparse-attention and zo-finetune extras installed (a CUDA build of torch):
#   bash benchmarks/gpu_smoke.sh              # GPU_SMOKE_FULL=1: the *_gpu suites as committed (much longer)
# Steps: (1) the device torch selects; (2) the kernel tests compiled by Triton on CUDA (TRITON_INTERPRET
# unset: never the CPU interpreter), none skipped for want of CUDA; (3) the GPU benchmarks; (4) every
# suites/*_gpu*.yaml (one seed, first dataset, unless GPU_SMOKE_FULL=1) into a temporary store, then a
# check that each stored run is ok, on device 'cuda', with peak CUDA memory recorded (peak_cuda_mb,
# harness/measure.py). Without CUDA it stops at step 1 with a 'no CUDA' line and exit code 2.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
unset TRITON_INTERPRET   # the kernel tests compile their Triton kernels when CUDA is there and this is unset
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

step() { printf '\n== gpu_smoke: %s\n' "$*"; }
fail() { printf 'gpu_smoke: FAILED: %s\n' "$*" >&2; exit 1; }

step "1/4 device"
"$python" - <<'EOF'
import sys

try:
    import torch
except ImportError:
    print("gpu_smoke: no CUDA: torch is not installed", file=sys.stderr)
    sys.exit(2)
if not torch.cuda.is_available():
    print(f"gpu_smoke: no CUDA: torch {torch.__version__} (built for CUDA {torch.version.cuda}) sees no GPU; "
          "run this on a CUDA machine with a CUDA build of torch", file=sys.stderr)
    sys.exit(2)
index = torch.cuda.current_device()
major, minor = torch.cuda.get_device_capability(index)
print(f"cuda:{index} {torch.cuda.get_device_name(index)}, capability {major}.{minor}, "
      f"{torch.cuda.device_count()} visible, torch {torch.__version__}, CUDA {torch.version.cuda}")
EOF

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "2/4 kernel tests, Triton compiled on CUDA"
"$python" -c 'import kernels.int4_matmul.triton_kernel as a, kernels.block_sparse_attention.triton_kernel as b
assert not (a.INTERPRETED or b.INTERPRETED), "Triton runs interpreted: unset TRITON_INTERPRET"'
"$python" -m pytest tests/kernels -q -rs -p no:cacheprovider | tee "$work/kernels.log"
if grep -q "needs CUDA" "$work/kernels.log"; then fail "kernel tests were skipped for want of CUDA"; fi

step "3/4 GPU benchmarks"
"$python" -m pytest benchmarks -k cuda --benchmark-only -q -rs -p no:cacheprovider \
  --benchmark-columns=min,mean,max,rounds | tee "$work/bench.log"
if grep -Eq "[0-9]+ skipped" "$work/bench.log"; then fail "a GPU benchmark was skipped"; fi

step "4/4 GPU suites into $work/results.sqlite"
shopt -s nullglob
suites=(suites/*_gpu*.yaml)
if [ ${#suites[@]} -eq 0 ]; then fail "no suites/*_gpu*.yaml"; fi
for suite in "${suites[@]}"; do
  run="$suite"
  if [ "${GPU_SMOKE_FULL:-0}" != 1 ]; then   # one seed of the first dataset: the path, not the statistics
    run="$work/$(basename "$suite")"
    "$python" - "$suite" "$run" <<'EOF'
import sys

import yaml

suite = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
defaults = suite.setdefault("defaults", {})
defaults["seeds"] = defaults.get("seeds", [0])[:1]
suite["datasets"] = dict(list(suite["datasets"].items())[:1])
for key in ("claims", "references", "matrix"):
    suite.pop(key, None)
yaml.safe_dump(suite, open(sys.argv[2], "w", encoding="utf-8"), sort_keys=False)
EOF
  fi
  echo "harness run $run"
  "$python" -m harness.cli run "$run" --store "$work/results.sqlite" --jobs 1
done

"$python" - "$work/results.sqlite" <<'EOF'
import sys

from harness.store import Store

records = list(Store(sys.argv[1]).records())
bad = [f"{r['suite']}/{r['method']}/{r['dataset']}/{r['seed']}: status {r['status']}, device {r.get('device')}, "
       f"peak_cuda_mb {r['measurements'].get('peak_cuda_mb')}"
       for r in records
       if r["status"] != "ok" or r.get("device") != "cuda"
       or not (r["measurements"].get("peak_cuda_mb") or {}).get("value", 0) > 0]
if not records or bad:
    sys.exit("gpu_smoke: FAILED: " + ("no run was stored" if not records else "; ".join(bad)))
print(f"{len(records)} runs stored: every one ok, on cuda, with peak CUDA memory recorded "
      f"(max {max(r['measurements']['peak_cuda_mb']['value'] for r in records):.0f} MB)")
EOF
step "passed"
