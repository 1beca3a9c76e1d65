# One-command entry points. `make run` sets up and runs the main job; `make test` sets up
# and runs the test suite (this is what CI runs, through .ci/run).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup browser run test coverage test-all slowest lint format bench results plots cards clean

# pytest on both cores (pytest-xdist): each test file is one work unit, the Ray files one
# more, sent first (tests/conftest.py): module fixtures are built once, one Ray cluster runs
XDIST := -n 2 --dist loadfile --no-loadscope-reorder
# mypy on both cores too: a cold run (a fresh clone has no cache) 31 s -> 25 s
MYPY_WORKERS := -n 2

# Python may write bytecode caches (some shells set PYTHONDONTWRITEBYTECODE): every test
# subprocess, Ray worker and CLI then imports the project from them, not from source
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# the pinned CPU wheel first, with pip (it reads this machine's wheel folder): an
	# unpinned torch would pull GBs of CUDA packages; then uv, which installs the rest in
	# parallel (about 1 minute for the whole set-up, against about 2.5 with pip alone).
	# --no-compile: Python compiles the modules a process imports on first use, not
	# every module of torch and sympy now (35 s -> 15 s for this line, +3 s on the
	# first import of torch; measured 2026-12-03)
	$(VENV)/bin/pip install -q --no-compile torch==2.13.0 'uv>=0.5'
	$(VENV)/bin/uv pip install -q --python $(PY) -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# The browser tests (tests/web/test_web_browser.py) drive Debian's chromium; as root it is
# installed when missing, elsewhere they are skipped with a reason (under CI they fail).
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

# The main job: the default training run, about 2 minutes on 2 cores (imitation of the
# expert bot, then PPO over full series; TensorBoard logs, checkpoints and final_model/
# under runs/quickstart__<time>/), then the model against two bots over full Hollywood
# series (it wins about 42% of them against simple).
run: setup
	@run=quickstart__$$(date +%Y%m%d-%H%M%S); set -e; \
	$(PY) train.py --run-name $$run; \
	$(PY) evaluate.py runs/$$run/final_model random --series 200 --seed 1 \
		--json runs/$$run/eval_vs_random.json --no-progress; \
	$(PY) evaluate.py runs/$$run/final_model simple --series 200 --seed 1 \
		--json runs/$$run/eval_vs_simple.json --no-progress; \
	echo "run folder: runs/$$run   (TensorBoard: $(VENV)/bin/tensorboard --logdir runs)"

test: setup browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy $(MYPY_WORKERS)
	$(PY) -m pytest $(XDIST)

# The same suite under coverage's tracer, with the report of the lines never run. Apart
# from make test: on Python 3.11 the tracer makes the CPU-bound tests (engine, bots) about
# 1.6 times slower.
coverage: setup browser
	$(PY) -m pytest $(XDIST) --cov=hgin_env --cov=agents --cov-report=term:skip-covered

test-all: setup
	$(PY) -m pytest $(XDIST) -m ''

# the 20 slowest tests of the default selection (setup and teardown counted apart)
slowest: setup
	$(PY) -m pytest $(XDIST) -q --durations=20 --durations-min=0

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy $(MYPY_WORKERS)

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# the peers (OpenSpiel, RLCard) come with the dev extra
bench: setup
	$(PY) -m benchmarks.engine_speed
	$(PY) -m benchmarks.env_speed

# The shipped agent's results table, docs/results.md (section The shipped agent): 2000 full
# series against each bot, seeds apart from training; also rewrites its eval.json.
results: setup
	$(PY) evaluate.py ppo-cards --against random simple expert --series 2000 --seed 2026 \
		--json models/ppo-cards/eval.json

# docs/results.md's pictures, drawn by hgin-plot from the shipped models' own files (the
# plots extra, which make setup installs): their learning curves, every model against its
# opponents under both rule sets, ppo-taught's series won with the 95% intervals
plots: setup
	$(VENV)/bin/hgin-plot models/ppo-cards models/ppo-league models/ppo-league2 \
		-o docs/img/results-curves.png --title "shipped PPO runs: evaluations during training"
	$(VENV)/bin/hgin-plot models/*/eval.json --heatmap -o docs/img/results-heatmap.png \
		--title "default rules"
	$(VENV)/bin/hgin-plot models/*/eval_undercut25.json --heatmap \
		-o docs/img/results-heatmap-undercut25.png --title "undercut bonus 25"
	$(VENV)/bin/hgin-plot models/ppo-taught/eval.json models/ppo-taught/eval_undercut25.json \
		-o docs/img/results-ppo-taught.png

# the model cards, models/<name>/README.md, written from each model folder's files
cards: setup
	$(PY) -m hgin_cli.model_card

clean:
	rm -rf $(VENV) build *.egg-info
