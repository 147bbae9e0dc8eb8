# The book's two commands (see README.md):
#   make book   set up .venv if needed, execute every chapter, build the HTML book into _build/html/
#   make test   set up .venv if needed, run every test: ruff, the package's unit tests, the book's
#               own guards, every chapter under nbval, and the book build with warnings as errors
# Both do their own set-up; PYTHON=/path/to/python3.x chooses the interpreter for the venv.

PYTHON ?= python3
BIN := .venv/bin

.PHONY: book test lint unit chapters build clean help

help:
	@sed -n '1,5p' Makefile

book:
	@PYTHON=$(PYTHON) tools/setup_env.sh book
	@tools/build_book.sh

test:
	@PYTHON=$(PYTHON) tools/setup_env.sh test
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory unit
	@tools/build_book.sh

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Unit tests, the book's guards and the Colab rehearsal (tests/), then every chapter under nbval,
# in one pytest run so that one summary line counts them all.
unit:
	$(BIN)/python -m pytest tests chapters --nbval-lax

clean:
	rm -rf _build .pytest_cache .ruff_cache
