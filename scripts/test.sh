#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs them all.
#  - Mesa's lavapipe (a CPU Vulkan driver, so the WGSL really runs without a GPU) from Debian bookworm-backports,
#    when running as root on Debian and no Vulkan driver recent enough for Dawn is installed (bookworm's own
#    Mesa 22.3 is rejected by Dawn);
#  - Debian's chromium (for the browser test, test/browser), when running as root on Debian and it is missing;
#  - Debian's nats-server (for the distributed tests, test/cpu/distributed.nats*.test.ts), likewise;
#  - the npm dependencies (npm ci) when node_modules is missing;
# then type-checks and runs the cpu, gpu and browser test projects. With TREELINE_REQUIRE_GPU=1 (CI) GPU tests fail
# instead of skipping when no adapter is found; with TREELINE_REQUIRE_BROWSER=1 (CI) the browser test fails instead
# of skipping when Chromium is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mesa_version() { dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true; }
need_lavapipe() {
  local v; v="$(mesa_version)"
  [ -z "$v" ] && return 0
  dpkg --compare-versions "$v" lt 23 && return 0
  return 1
}

if command -v dpkg-query >/dev/null 2>&1 && need_lavapipe; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && grep -q '^12' /etc/debian_version; then
    echo "test.sh: installing Mesa lavapipe from bookworm-backports" >&2
    src=/etc/apt/sources.list.d/backports.sources
    if [ ! -f "$src" ]; then
      uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
      printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" > "$src"
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
  else
    echo "test.sh: no recent Mesa Vulkan driver (lavapipe); GPU tests will skip unless TREELINE_REQUIRE_GPU=1." >&2
    echo "         As root on Debian bookworm this script installs it from bookworm-backports." >&2
  fi
fi

chromium="${TREELINE_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing Debian's chromium for the browser test" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q chromium >/dev/null
  else
    echo "test.sh: no Chromium at $chromium; the browser test will skip unless TREELINE_REQUIRE_BROWSER=1." >&2
    echo "         As root on Debian this script installs it (apt-get install chromium)." >&2
  fi
fi

if ! command -v nats-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing Debian's nats-server for the distributed tests" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q nats-server >/dev/null
  else
    echo "test.sh: no nats-server; the distributed tests will fail (apt-get install nats-server)." >&2
  fi
fi

[ -d node_modules ] || npm ci --no-audit --no-fund
node scripts/embed-shaders.mjs
npx tsc -p tsconfig.json --noEmit
report="$(mktemp -t treeline-vitest-XXXXXX.json)"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# One plain closing line for CI, agreeing with vitest's exit status (scripts/vitest-summary.mjs).
node scripts/vitest-summary.mjs "$report" "$status" || status=1
rm -f "$report"
exit $status
