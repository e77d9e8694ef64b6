# corpus — every target runs the `corpus` CLI from .venv (created on first use).
#   make demo     set up, run every stage on configs/demo.toml, print a summary
#   make test     set up, run the test suite
# Set CORPUS_MIRROR=<dir of sha256-named files> to fetch without internet.

VENV    ?= .venv
PY      := $(VENV)/bin/python
CORPUS  := $(VENV)/bin/corpus
CONFIG  ?= configs/demo.toml
WORKERS ?=
ARGS    ?=
ID      ?=
RUN     := $(CORPUS) --config $(CONFIG)
STAGE_ARGS := $(if $(WORKERS),--workers $(WORKERS)) $(ARGS)
STAMP   := $(VENV)/.installed
# the tests' processes keep their compiled code (pytest's rewritten test modules, corpus's .pyc) even where the
# environment sets PYTHONDONTWRITEBYTECODE: else every worker and every `corpus` subprocess compiles it again
PYTEST  := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest
LOCK    := requirements.lock
LOCK_NODEPS := requirements-nodeps.lock
UV_VERSION := 0.13.9
RUFF_VERSION := 0.17.6

.PHONY: setup lock golden docs demo demo-web all lint test test-fast bench bench-scale fetch normalize filter rejects dedup pii shards tokens export why quality gc diff takedown signals tune audit report ledger-verify clean help

help:            ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

setup: $(STAMP)  ## create .venv and install corpus and every dependency from requirements.lock

# Every package at the exact version and sha256 of requirements.lock (make lock regenerates it), then
# mosaicml-streaming without its dependencies (requirements-nodeps.in says why), then corpus itself.
# torch is the CPU build torch==2.13.0+cpu, found in the local wheel directory (pip.conf's find-links):
# the lock names no other torch, so no resolver can pick a multi-GB CUDA build.
$(STAMP): pyproject.toml $(LOCK) $(LOCK_NODEPS)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --require-hashes --no-deps -r $(LOCK)
	$(PY) -m pip install -q --require-hashes --no-deps -r $(LOCK_NODEPS)
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	touch $@

lock:            ## regenerate requirements.lock and requirements-nodeps.lock (ARGS=--upgrade to move pins)
	$(PY) -m pip install -q uv==$(UV_VERSION)
	$(VENV)/bin/uv pip compile pyproject.toml --extra all --extra test -c constraints.txt --find-links /opt/wheels \
	    --python-version 3.11 --generate-hashes --custom-compile-command "make lock" -o $(LOCK) $(ARGS)
	$(VENV)/bin/uv pip compile requirements-nodeps.in --no-deps \
	    --python-version 3.11 --generate-hashes --custom-compile-command "make lock" -o $(LOCK_NODEPS) $(ARGS)

golden: $(STAMP) ## rebuild the golden run and rewrite tests/golden/SHA256SUMS (after an intended output change)
	$(PY) -m corpus.commands.golden --update

docs: $(STAMP)   ## regenerate docs/configuration.md from schemas/corpus-config.schema.json
	$(PY) -m corpus.commands.docs --write

demo: $(STAMP)   ## run every stage on configs/demo.toml, audit it, print a summary
	$(RUN) run $(STAGE_ARGS)
	$(RUN) audit
	$(RUN) report

CRAWL   := artifacts/web-crawl
WEB     := $(CORPUS) --config configs/web-crawl.toml
demo-web: $(STAMP)  ## a local crawl of the shared pages (12 WARC files, one listing row), every stage, audit, summary
	$(PY) examples/local_crawl.py $(CRAWL)
	cp corpus/LEDGER.jsonl $(CRAWL)/LEDGER.jsonl
	$(WEB) ledger add $(CRAWL)/warc.paths --source-id local-crawl --format warc --license LicenseRef-local-crawl-mixed \
	    --notes "examples/local_crawl.py: TinyStories (CDLA-Sharing-1.0), WikiText (CC-BY-SA-3.0), trafilatura test pages"
	$(WEB) run $(STAGE_ARGS)
	$(WEB) audit
	$(WEB) report

all: $(STAMP)    ## every stage in order, skipping current ones (corpus run)
	$(RUN) run $(STAGE_ARGS)

lint: $(STAMP)   ## ruff over the package, tests and bench (rules in pyproject.toml)
	$(PY) -m pip install -q ruff==$(RUFF_VERSION)
	$(VENV)/bin/ruff check python tests bench examples

test: $(STAMP)   ## run the test suite on every core (pytest-xdist), the 15 slowest tests listed
	$(PYTEST) -n auto --dist loadscope --durations=15

test-fast: $(STAMP)  ## the fast tier (<60 s, run it after every edit): no pipeline build, Ray, S3 server or browser
	$(PYTEST) -n auto --dist loadscope -m "not slow and not cluster and not s3 and not browser"

bench: $(STAMP)  ## stage throughput/memory, core-hours per TB, datatrove peers, quality -> bench/results/<date>.md (ARGS="--corpus F")
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) bench/run_bench.py $(ARGS)

bench-scale: $(STAMP)  ## memory and time at 1x/4x/16x of real text, 1 vs 2 workers -> bench/results/scale-<date>.md
	$(PY) bench/scale.py $(ARGS)

fetch: $(STAMP)  ## stage 01: ledger sources -> corpus/raw/
	$(RUN) fetch $(STAGE_ARGS)

normalize: $(STAMP)  ## stage 02: NFC, newlines, control chars; assign ids
	$(RUN) normalize $(STAGE_ARGS)

filter: $(STAMP)  ## stage 03: filters url, lang, gopher, repetition, c4, fineweb, badwords, ppl, quality (those enabled, in [filters] order)
	$(RUN) filter $(STAGE_ARGS)

rejects: $(STAMP)  ## show a sample of the documents each filter rule dropped
	$(RUN) rejects $(ARGS)

dedup: $(STAMP)  ## stage 04: decontamination, exact and MinHash near-dedup
	$(RUN) dedup $(STAGE_ARGS)

pii: $(STAMP)    ## stage 05: PII scrub with typed placeholders
	$(RUN) pii $(STAGE_ARGS)

shards: $(STAMP) ## stage 06: sorted, hash-split Parquet shards + _MANIFEST.json
	$(RUN) shard $(STAGE_ARGS)

tokens: $(STAMP) ## stage 07: token streams (.bin + Megatron .idx) for the trainer
	$(RUN) tokenize $(STAGE_ARGS)

export: $(STAMP) ## export tokens: make export ARGS="--format nanogpt"
	$(RUN) export $(ARGS)

why: $(STAMP)    ## one document's path through every stage: make why ID=<source_id>:<k>
	$(RUN) why $(ID) $(ARGS)

quality: $(STAMP) ## train the [filters.quality] classifier (or find it) and print its held-out metrics
	$(RUN) quality train $(ARGS)

gc: $(STAMP)     ## list what no dataset version refers to (ARGS=--delete removes it, ARGS=--cache adds the cache, ARGS="--version NAME/VERSION" one version)
	$(RUN) gc $(ARGS)

audit: $(STAMP)  ## re-check every manifest, checksum, count and licence
	$(RUN) audit

takedown: $(STAMP) ## a version without the documents takedown lists name: make takedown V=demo/v1 TO=v2 ARGS="--list my-optouts"
	$(RUN) takedown $(V) --to $(TO) $(ARGS)

diff: $(STAMP)   ## two versions of a dataset compared: make diff A=demo/v1 B=demo/v2 (ARGS=--json)
	$(RUN) diff $(A) $(B) $(ARGS)

signals: $(STAMP) ## every document's filter signals as Parquet: make signals [V=demo/v1] [OUT=dir]
	$(RUN) signals export $(V) $(if $(OUT),--out $(OUT)) $(ARGS)

tune: $(STAMP)   ## what each threshold value keeps, from stored signals: make tune ARGS="filters.gopher.min_words 30 50 80"
	$(RUN) tune $(ARGS)

report: $(STAMP) ## summarise the dataset; write reports/<dataset>/<version>/index.html
	$(RUN) report

ledger-verify: $(STAMP)  ## check every ledger row (schema, ids, checksums of local files)
	$(RUN) ledger verify

clean:           ## remove the demo artifacts (not .venv)
	rm -rf artifacts
