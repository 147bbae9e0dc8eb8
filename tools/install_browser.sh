#!/usr/bin/env bash
# Makes sure the browser test (tests/browser) has its Chromium: Debian's package `chromium`
# (/usr/bin/chromium), which Playwright's Python package drives. When it is missing, installs it
# with apt-get if this machine has apt-get and we are root; otherwise says what to do and fails.
# Never downloads a browser of its own (no `playwright install`).
#
#   tools/install_browser.sh
#   BOOK_CHROMIUM=/path/to/chromium tools/install_browser.sh   # use another Chromium or Chrome
set -euo pipefail

chromium="${BOOK_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$chromium" ]; then
  exit 0
fi
if [ -n "${BOOK_CHROMIUM:-}" ]; then
  echo "error: BOOK_CHROMIUM=$chromium is not an executable file." >&2
  exit 1
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "error: the browser test needs Chromium at /usr/bin/chromium, and this script installs it only" >&2
  echo "       as root on a machine with apt-get. Install it yourself, e.g. on Debian:" >&2
  echo "           sudo apt-get install chromium" >&2
  echo "       or point the test at an installed Chromium or Chrome:" >&2
  echo "           export BOOK_CHROMIUM=/path/to/chromium" >&2
  exit 1
fi

echo "== installing Debian's chromium for the browser test (apt-get)"
start=$(date +%s)
log=$(mktemp)
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "error: apt-get could not install chromium (see above). Install Chromium yourself and, if it is" >&2
  echo "       not at /usr/bin/chromium, set BOOK_CHROMIUM=/path/to/chromium." >&2
  exit 1
fi
rm -f "$log"
if [ ! -x /usr/bin/chromium ]; then
  echo "error: apt-get installed chromium, but /usr/bin/chromium is missing; set BOOK_CHROMIUM." >&2
  exit 1
fi
echo "== $(/usr/bin/chromium --version 2>/dev/null) installed in $(($(date +%s) - start)) s"
