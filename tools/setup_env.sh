#!/usr/bin/env bash
# Creates the book's virtual environment in .venv (inside the repository) and installs what
# `make book` and `make test` need. Never touches the user's global Python.
#
#   tools/setup_env.sh book   # what building the book needs
#   tools/setup_env.sh test   # that, plus the test tools: Python's, and Node.js with Biome
#
# The test set-up also makes sure Node.js and npm are installed (the Node tests run the page's own
# scripts; npm installs Biome, which lints the JavaScript and CSS, at the version package-lock.json
# locks): with apt-get when they are missing and this runs as root, otherwise it says what to install
# and fails. It runs `npm ci` when node_modules/ is missing or older than package-lock.json.
#
# Every package comes at the version constraints.txt locks (tools/lock_stack.py), when the Python is the
# 3.11 the lock was made on; BOOK_UNLOCKED=1 installs the newest versions the requirements allow instead
# (the upgrade-check workflow).
#
# torch: a torch already in .venv is kept. Otherwise the CPU build is installed, so that no
# multi-GB CUDA build is downloaded: from a local wheel where pip's configuration offers one
# (development and CI machines), else from PyTorch's CPU index. Set TORCH_INSTALL to a pip
# argument list to choose differently, e.g. TORCH_INSTALL="torch" for PyPI's default build.
set -euo pipefail
cd "$(dirname "$0")/.."

want="${1:-book}"
python="${PYTHON:-python3}"
venv=.venv
stamp="$venv/.installed-$want"

if ! command -v "$python" >/dev/null 2>&1; then
  echo "error: '$python' was not found; the book needs Python 3.10 or newer (set PYTHON=/path/to/python3)." >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "error: the book needs Python 3.10 or newer; '$python' is $("$python" -c 'import platform; print(platform.python_version())')." >&2
  echo "       Run again with PYTHON=/path/to/python3.11 (or any 3.10+)." >&2
  exit 1
fi

# Node.js and npm, then the packages package-lock.json locks (Biome), for the tests only.
if [ "$want" = test ]; then
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      echo "error: the tests need Node.js and npm: node runs the page's scripts under test, and npm" >&2
      echo "       installs Biome, the linter of the JavaScript and CSS. This script installs them only" >&2
      echo "       as root on a machine with apt-get. Install them yourself, e.g. on Debian:" >&2
      echo "           sudo apt-get install nodejs npm" >&2
      echo "       then run this set-up again." >&2
      exit 1
    fi
    echo "== installing Debian's nodejs and npm for the tests (apt-get)"
    log=$(mktemp)
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm; } >"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      echo "error: apt-get could not install nodejs and npm (see above); install Node.js and npm yourself." >&2
      exit 1
    fi
    rm -f "$log"
  fi
  npm_stamp=node_modules/.installed
  if [ ! -f "$npm_stamp" ] || [ package-lock.json -nt "$npm_stamp" ]; then
    echo "== installing package-lock.json's packages with npm ci (node $(node --version))"
    npm ci --no-audit --no-fund --loglevel=error
    touch "$npm_stamp"
  fi
fi

lock=(-c constraints.txt)
if [ -n "${BOOK_UNLOCKED:-}" ]; then
  lock=()
  echo "== BOOK_UNLOCKED is set: the newest versions the requirements allow, not constraints.txt's"
elif ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  lock=()
  echo "== constraints.txt was locked on Python 3.11; on $("$python" --version) the newest versions the requirements allow"
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "== creating $venv with $("$python" --version)"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet ${lock[@]+"${lock[@]}"} --upgrade pip
fi
pip=("$venv/bin/python" -m pip)

# Skip the installs when nothing they read has changed since the last successful one.
inputs=(requirements.txt constraints.txt code/pyproject.toml tools/setup_env.sh)
[ "$want" = test ] && inputs+=(requirements-test.txt)
# The test set-up installs all that the book's needs, so a fresh test stamp serves `make book` too.
stamps=("$stamp")
[ "$want" = book ] && stamps+=("$venv/.installed-test")
for done_stamp in "${stamps[@]}"; do
  if [ -f "$done_stamp" ] && [ -z "$(find "${inputs[@]}" -newer "$done_stamp" 2>/dev/null)" ]; then
    exit 0
  fi
done

# uv (pip installs it, from PyPI, into .venv) installs the rest: it resolves and installs the same pins
# as pip in a fraction of pip's time, and compiles the bytecode as pip does, so that no later import
# pays for it.
"${pip[@]}" install --quiet ${lock[@]+"${lock[@]}"} uv
uv=("$venv/bin/uv" pip install --quiet --python "$venv/bin/python" --compile-bytecode)

# The local wheel of torch that pip's configuration offers, if any: pip finds it (uv reads no pip
# configuration), uv installs it.
torch_version="${TORCH_LOCAL_VERSION:-2.13.0}"
local_torch=$("${pip[@]}" install --quiet --no-index --no-deps --ignore-installed --dry-run --report - \
  "torch==$torch_version" 2>/dev/null |
  "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["install"][0]["download_info"]["url"])' \
    2>/dev/null) || local_torch=""
if "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "== keeping torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)')"
elif [ -n "${TORCH_INSTALL:-}" ]; then
  echo "== installing torch: pip install $TORCH_INSTALL"
  # shellcheck disable=SC2086
  "${pip[@]}" install $TORCH_INSTALL
elif [ -n "$local_torch" ]; then
  echo "== installing torch's CPU build from a local wheel"
  "${uv[@]}" ${lock[@]+"${lock[@]}"} "torch @ $local_torch"  # and its dependencies, from PyPI
else
  echo "== installing torch's CPU build from PyTorch's CPU index"
  "${pip[@]}" install torch --index-url https://download.pytorch.org/whl/cpu \
    --extra-index-url https://pypi.org/simple
fi

echo "== installing requirements.txt"
"${uv[@]}" ${lock[@]+"${lock[@]}"} -r requirements.txt
if [ "$want" = test ]; then
  echo "== installing requirements-test.txt"
  "${uv[@]}" ${lock[@]+"${lock[@]}"} -r requirements-test.txt
fi
"$venv/bin/python" -m ipykernel install --sys-prefix --name python3 >/dev/null
touch "$stamp"
