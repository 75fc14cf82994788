# The two set-up commands of the README: `make play` and `make test`.
# Each creates the virtual environment .venv/ at the repo root when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.zeroplay-installed
# Where pip finds PyTorch's CPU build. Empty: pip's own settings (a machine with a local CPU wheel,
# as the project's machines have). On an ordinary Linux machine PyPI's torch is the multi-GB CUDA
# build: `make play TORCH_INDEX=https://download.pytorch.org/whl/cpu` takes the CPU one instead.
TORCH_INDEX ?=

.PHONY: play test test-slow lint bench venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# the CPU build first (TORCH_INDEX above); a bare `torch` requirement would pull a CUDA build
	$(BIN)/python -m pip install torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install -e '.[dev,ray]'
	# compile the numba kernels now, one progress line per stage (cached on disk): the first
	# `zeroplay play` then starts in seconds instead of compiling silently for minutes
	$(BIN)/python -c "from zeroplay.engine.factory import warm_up; warm_up(print, solvers=True, model=True)"
	touch $(STAMP)

venv: $(STAMP)

play: $(STAMP)
	$(BIN)/zeroplay play

# the static gates (ruff, mypy: configured in pyproject.toml) first, then the tests
lint: $(STAMP)
	$(BIN)/python -m ruff check src
	$(BIN)/python -m mypy

# one test process per core (pytest-xdist; at most 4: each holds torch and the compiled kernels);
# loadgroup keeps the tests marked xdist_group("ray") on one worker, one Ray instance at a time
test: lint
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadgroup

# the long tests `make test` leaves out (CI's slow job: `.ci/run slow`)
test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow -rs

bench: $(STAMP)
	$(BIN)/zeroplay bench rules

clean:
	rm -rf $(VENV) build *.egg-info
