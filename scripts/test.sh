#!/usr/bin/env bash
# The one test command (npm test): unit tests in Node, the packed library in a clean folder,
# and the browser end-to-end tests in Debian's Chromium (installed here when missing), the app's
# and the MV3 extension's.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "test: installing Debian's chromium for the browser tests"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# The int8 index kernel is committed as built wasm (src/adapters/hnsw-i8/kernel-wasm.ts): prove it
# is what kernel.c compiles to (Debian's clang-14 and lld-14, installed here when missing).
node scripts/build-index-wasm.mjs --check --install

# The real embedding models (MiniLM, bge-small): the unit, golden and browser tests use them.
node scripts/models.mjs
npx tsc -p tsconfig.json
npx vitest run
node scripts/pack-smoke.mjs
if [ -d e2e ] && ls e2e/*.spec.ts >/dev/null 2>&1; then
  # The builds stay quiet (#53): a Node-only module externalized, or the plugin-timing report, fails here.
  build_log=$(mktemp)
  { npm run --silent build:app -- --mode e2e && npm run --silent build:ext; } 2>&1 | tee "$build_log"
  if grep -E "has been externalized|PLUGIN_TIMINGS" "$build_log"; then
    echo "test: the build printed warnings a user cannot act on (above): keep Node-only modules out of the browser graph (scripts/node-only.mjs)" >&2
    exit 1
  fi
  rm -f "$build_log"
  npx playwright test
fi
