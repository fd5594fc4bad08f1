#!/usr/bin/env bash
# Device check for issue 27 (prof-core): a training-command sweep on a real GPU.
#
# 1. HERE (in the worktree root, the repository root), build the carried folder:
#      bash scripts/device-check.sh --build
#    It makes shared/device/ (about 8 MiB; shared/ is carried by `run` without naming it):
#      shared/device/beton-main.mjs    esbuild bundle of core/cli/main.ts (better-sqlite3 and sharp external)
#      shared/device/beton.mjs         the entry (calls main, as bin/beton.js does)
#      shared/device/node_modules/     better-sqlite3 (+ bindings, file-uri-to-path): the runs database
#      shared/device/python/, examples/ the probe and examples/train-workers.py
#      shared/device/node.gz           this machine's node (only if --with-node: the device may lack Node)
#    The exact bundle command (what --build runs):
#      npx esbuild core/cli/main.ts --bundle --platform=node --format=esm --target=node20 \
#        --outfile=shared/device/beton-main.mjs --external:better-sqlite3 --external:sharp --log-level=warning \
#        --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
# 2. ON THE DEVICE (run tool, repository root; timeout_s 420):
#      bash shared/device/device-check.sh
#    Prints nvidia-smi and runs
#      beton profile --exec "python3 examples/train-workers.py --workers {workers} --batch-size 256 …" --workers 2,4,8,16 --seconds 20
#    saving nvidia-smi.txt, sweep.txt (CLI text with the answer), sweep.json (--json) and runs-show.txt to $OUT.
#    Four points × at most 25 s plus start-up: about 2–3 minutes; the whole script stays under 5.
set -u
if [ "${1:-}" = "--build" ]; then
  set -e
  D=shared/device
  rm -rf "$D" && mkdir -p "$D/node_modules"
  npx esbuild core/cli/main.ts --bundle --platform=node --format=esm --target=node20 \
    --outfile="$D/beton-main.mjs" --external:better-sqlite3 --external:sharp --log-level=warning \
    --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
  cat > "$D/beton.mjs" <<'JS'
const { main } = await import('./beton-main.mjs');
process.exitCode = await main(process.argv.slice(2));
JS
  for m in better-sqlite3 bindings file-uri-to-path; do cp -rL "node_modules/$m" "$D/node_modules/$m"; done
  rm -rf "$D/node_modules/better-sqlite3/deps" "$D/node_modules/better-sqlite3/src" "$D/node_modules/better-sqlite3/build/Release/obj"* \
    "$D/node_modules/better-sqlite3/build/Release/"*.a 2>/dev/null || true
  cp -r python examples "$D/"
  cp scripts/device-check.sh "$D/device-check.sh"
  if [ "${2:-}" = "--with-node" ]; then gzip -9c "$(command -v node)" > "$D/node.gz"; fi
  du -sh "$D"
  # A quick check here: the bundle starts and opens a runs database.
  node "$D/beton.mjs" --version
  exit 0
fi

HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-/tmp/device-out}"
mkdir -p "$OUT"
NODE="$(command -v node || true)"
if [ -z "$NODE" ] && [ -f "$HERE/node.gz" ]; then
  gunzip -c "$HERE/node.gz" > /tmp/node && chmod +x /tmp/node && NODE=/tmp/node
fi
[ -n "$NODE" ] || { echo "no node on the device and no shared/device/node.gz (build with --with-node)"; exit 1; }
PY="$(command -v python3)"
{ nvidia-smi; echo; "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'; "$NODE" --version; } 2>&1 | tee "$OUT/nvidia-smi.txt"
cd "$HERE"
CMD="$PY examples/train-workers.py --workers {workers} --batch-size {batch_size} --steps 200 --sample-ms 1.5 --side 96 --width 8192 --inner 8"
export NODE_PATH="$HERE/node_modules"
timeout 280 "$NODE" beton.mjs profile --exec "$CMD" --workers 2,4,8,16 --batch-sizes 256 --seconds 20 --db "$OUT/runs.sqlite" 2>&1 | tee "$OUT/sweep.txt"
ID="$("$NODE" beton.mjs runs list --db "$OUT/runs.sqlite" --json 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')"
"$NODE" beton.mjs runs show "$ID" --db "$OUT/runs.sqlite" --json > "$OUT/sweep.json"
"$NODE" beton.mjs runs show "$ID" --db "$OUT/runs.sqlite" 2>&1 | tee "$OUT/runs-show.txt"
