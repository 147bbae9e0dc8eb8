#!/usr/bin/env bash
# Makes sure `make pdf` has the TeX Live it needs: XeLaTeX, latexmk, the LaTeX packages Sphinx's LaTeX
# writer loads, and the FreeFont OpenType fonts XeLaTeX typesets the book with. When something is
# missing, installs Debian's packages with apt-get if this machine has apt-get and we are root;
# otherwise names the packages to install and fails. Never installs anything without root.
#
#   tools/install_tex.sh           # install what is missing (as root), or say what to install
#   tools/install_tex.sh --check   # only say whether everything is there (exit 1 if not)
set -euo pipefail

# About 320 MB installed. Not texlive-fonts-extra (1.7 GB): the book's LaTeX needs none of it
# (_config.yml's latex settings and tools/latex_preamble.tex say why).
packages=(texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-xetex latexmk
  fonts-freefont-otf texlive-plain-generic lmodern)

missing() {
  local tool
  for tool in xelatex latexmk kpsewhich; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool"; return; }
  done
  # a few files, one from each package that the commands above do not bring
  local file
  for file in fncychap.sty capt-of.sty needspace.sty tabulary.sty varwidth.sty framed.sty wrapfig.sty \
    upquote.sty fontspec.sty lmodern.sty FreeSerif.otf; do
    kpsewhich "$file" >/dev/null 2>&1 || fc-list 2>/dev/null | grep -q "/$file" || { echo "$file"; return; }
  done
}

gone=$(missing)
if [ -z "$gone" ]; then
  exit 0
fi
if [ "${1:-}" = --check ] || [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "error: the PDF edition needs TeX Live with XeLaTeX and latexmk ($gone is missing)." >&2
  echo "       On Debian or Ubuntu, install it with:" >&2
  echo "           sudo apt-get install ${packages[*]}" >&2
  echo "       or run this script as root: sudo tools/install_tex.sh" >&2
  exit 1
fi

echo "== installing TeX Live for the PDF edition (apt-get): ${packages[*]}"
start=$(date +%s)
log=$(mktemp)
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${packages[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "error: apt-get could not install TeX Live (see above)." >&2
  exit 1
fi
rm -f "$log"
gone=$(missing)
if [ -n "$gone" ]; then
  echo "error: apt-get installed TeX Live, but $gone is still missing." >&2
  exit 1
fi
echo "== TeX Live installed in $(($(date +%s) - start)) s"
