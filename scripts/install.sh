#!/usr/bin/env bash
# Install bot-arena into .venv, with the system tools it uses.
#   scripts/install.sh          the sandbox tool (bubblewrap) and the package
#   scripts/install.sh --test   also the test and ray extras, the browser for the web-page tests
#                               and g++ for the C++ example bot's (examples/tron-cpp)
set -euo pipefail
cd "$(dirname "$0")/.."

extra=""
packages=(bubblewrap)
commands=(bwrap)
if [ "${1:-}" = "--test" ]; then
  extra="[test,ray]"
  packages+=(chromium chromium-driver g++)
  commands+=(chromium chromedriver g++)
fi

missing=()
for i in "${!commands[@]}"; do
  command -v "${commands[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "install.sh: installing ${missing[*]} with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "install.sh: WARNING: please install ${missing[*]} yourself (no apt-get here);" \
         "without bubblewrap bots run with weaker isolation (see docs/sandbox.md)" >&2
  fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -e ".$extra"
# An editable install compiles nothing: byte-compile the package now, as a regular install
# does, so that no command, and no bot importing arena.sdk in its read-only sandbox,
# compiles it again at every start (where PYTHONDONTWRITEBYTECODE is set, or a bot's
# sandbox cannot write, a command would take about 0.17 s more each time)
.venv/bin/python -m compileall -q -j 0 arena bots >/dev/null
