# The book's commands (see README.md):
#   make book   set up .venv if needed, execute the chapters that changed, build the HTML book into _build/html/
#   make test   set up .venv and Node's packages if needed, run every test: ruff, Biome, the unit
#               tests, the book's own guards, every chapter under nbval, the book build and its LaTeX
#               sources with warnings as errors, and every built page in headless Chromium with no
#               network (screenshots: _build/screenshots/); ends with a table of each step's seconds and CPU seconds
#   make quick  the author's loop: lint, the unit tests (not the slow ones), and only the chapters
#               that changed since they last passed (under nbval or in the build)
# Both do their own set-up; PYTHON=/path/to/python3.x chooses the interpreter for the venv.
#   make gpu-check  every chapter as a plain script on the device at hand (no Jupyter needed)
#   make pdf    the whole book as one PDF, _build/latex/attention-executed.pdf (needs TeX Live: see README)
#   make stress     every chapter under nbval beside busy neighbours, and with every thread (slow)
#   make colab-check  every chapter as Colab runs it: a bare environment, the chapter's own install

PYTHON ?= python3
BIN := .venv/bin

.PHONY: book test quick changed-chapters lint unit chapters build browser listings latex pdf gpu-check stress colab-check clean help

help:
	@sed -n '1,13p' Makefile

book:
	@PYTHON=$(PYTHON) tools/setup_env.sh book
	@tools/build_book.sh

# Each step through tools/steps.sh, which stops at the first failure and prints the table of seconds.
STEP := $(MAKE) --no-print-directory
test:
	@tools/steps.sh \
	  set-up "PYTHON=$(PYTHON) tools/setup_env.sh test && tools/install_browser.sh" \
	  lint "$(STEP) lint" \
	  "unit tests and chapters" "$(STEP) unit" \
	  build tools/build_book.sh \
	  latex "$(STEP) latex" \
	  browser "$(STEP) browser"

# What an author runs after an edit: no build, no browser; a chapter runs only when its code, the package
# or the environment changed since it last passed (tools/book_cache.py stale), and a chapter that passes
# here is stored in the cache, so that the next `make quick`, `make book` or `make test` reuses it.
quick:
	@tools/steps.sh \
	  set-up "PYTHON=$(PYTHON) tools/setup_env.sh test" \
	  lint "$(STEP) lint" \
	  "unit tests (not slow)" "OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 -m 'not slow' tests code/src/attnbook" \
	  "changed chapters" "$(STEP) changed-chapters"

changed-chapters:
	@chapters=$$($(BIN)/python tools/book_cache.py stale) || exit 1; \
	if [ -z "$$chapters" ]; then echo "== every chapter passed as it is now: none to run"; exit 0; fi; \
	echo "== chapters that changed since they last passed:" $$chapters; \
	OMP_NUM_THREADS=1 PYTHONPATH=tools $(BIN)/python -m pytest -q -p nbval_cache -n 2 --dist loadfile --nbval-lax $$chapters

# Biome (package.json, installed by tools/setup_env.sh with npm ci) lints the JavaScript and CSS and checks
# their layout; biome.jsonc says which files and how. `node_modules/.bin/biome format --write` lays them out.
BIOME := node_modules/.bin/biome
lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	cd code && ../$(BIN)/mypy
	$(BIN)/actionlint -shellcheck=$(BIN)/shellcheck .github/workflows/*.yml
	@test -x $(BIOME) || { echo "error: $(BIOME) is missing: run tools/setup_env.sh test, which installs it" >&2; exit 1; }
	$(BIOME) ci --error-on-warnings code/src/attnbook/book _static tests/js

# Unit tests, the book's guards and the Colab rehearsal (tests/), then every chapter under nbval,
# in one pytest run so that one summary line counts them all. Two workers, one file each at a time
# (--dist loadfile keeps a notebook's cells together), each on one thread so they do not fight.
# tools/nbval_cache.py stores each chapter that passes in the book's cache of executed chapters, so
# that the build which follows does not execute it again. Each step names its ten slowest tests.
unit:
	OMP_NUM_THREADS=1 PYTHONPATH=tools $(BIN)/python -m pytest -p nbval_cache -n 2 --dist loadfile --durations=10 tests code/src/attnbook chapters --nbval-lax

# Every page of the built book (run after the build) in headless Chromium with the network cut off:
# math typeset, figures loaded, no console error, Colab links, the table of contents, screenshots of
# each page's first screen (BOOK_FULL_PAGE_SHOTS=1: of each whole page).
# BROWSER_WORKERS processes (pytest-xdist), each with its own Chromium; a test file stays on one worker,
# except that the files checking every page spread their pages over the workers (the groups of
# tests/browser/conftest.py's scheduler), so that each page and translation is made once.
BROWSER_WORKERS ?= 3
browser:
	@tools/install_browser.sh
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest tests/browser -n $(BROWSER_WORKERS) --durations=10

# Only the test that every listing fits the page's code column without scrolling sideways (part of
# `make browser`): ruff keeps code/ and chapters/ to 75 characters, and every code column, a folded
# solution's included (_static/solution-code.css), holds at least that; it names each listing that scrolls
# (_build/screenshots/listings.json).
listings:
	@tools/install_browser.sh
	$(BIN)/python -m pytest tests/browser -m listings_fit_page

# The LaTeX sources of the PDF edition, warnings as errors (no TeX needed): run after the build, it
# takes every chapter from the cache of executed chapters that the build filled.
latex:
	@tools/build_pdf.sh latex

# The PDF edition: the whole book typeset by XeLaTeX, with every chapter's executed outputs, from the
# same cache of executed chapters as the HTML book. TeX Live comes from the system: tools/install_tex.sh
# installs Debian's packages when run as root, and otherwise names them and stops.
pdf:
	@PYTHON=$(PYTHON) tools/setup_env.sh book
	@tools/install_tex.sh
	@tools/build_pdf.sh

# Every chapter as a plain Python script, assertions on, on the device at hand (CUDA, then MPS, then
# the CPU), with a table of times and the device. Needs torch and the package's dependencies only:
# it is how the chapters are checked on a GPU machine with no Jupyter. GPU_PYTHON chooses the Python.
GPU_PYTHON ?= $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON))
gpu-check:
	$(GPU_PYTHON) tools/gpu_check.py

# Every chapter under nbval away from a quiet machine: one round with one thread beside a busy process on
# every core and a memory-bandwidth hog, one with OMP_NUM_THREADS unset (every core, other float summation
# orders; no neighbours, see tools/stress.py). Bounded in time; its neighbours stop by themselves, also
# when the run is interrupted.
# STRESS_ARGS passes options, e.g. STRESS_ARGS="--rounds busy 03_luong" (python tools/stress.py --help).
STRESS_ARGS ?=
stress:
	@PYTHON=$(PYTHON) tools/setup_env.sh test
	$(BIN)/python tools/stress.py $(STRESS_ARGS)

# Every chapter as Colab runs it: a new environment with torch, Jupyter's kernel and Colab's preinstalled
# packages only; each chapter's first cell installs the package from a clone of the commit under test
# (COLAB_COMMIT, default HEAD: commit first). COLAB_TORCH says which torch to install (pip arguments).
COLAB_COMMIT ?= HEAD
COLAB_TORCH ?= torch
COLAB_ARGS ?=
colab-check:
	COLAB_TORCH="$(COLAB_TORCH)" $(PYTHON) tools/colab_check.py --commit $(COLAB_COMMIT) $(COLAB_ARGS)

clean:
	rm -rf _build .pytest_cache .ruff_cache
