# Two commands for a newcomer: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lock upgrade lock-check docs migrate demo demo-passwords worker lint messages check-deploy clean bench-ingest bench-label bench-agreement bench-export bench-machine bench-memory bench-growth bench-hosts

# Every package comes from the hashed lock files in requirements/ (made by `make lock` from pyproject.toml): the
# same versions and bytes on every machine. pip installs the installer, uv, from its own hashed file; uv then
# installs the rest, about ten times faster than pip from a warm cache.
LOCK := requirements/dev.txt
UV := $(BIN)/uv
COMPILE := $(UV) pip compile --quiet --universal --python-version 3.11 --generate-hashes --no-header

$(UV): requirements/bootstrap.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements/bootstrap.txt
	touch $@

# Reinstalls only when a lock file changes.
$(VENV)/.installed: $(LOCK) pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(BIN)/python --require-hashes -r $(LOCK)
	$(UV) pip install --quiet --python $(BIN)/python --no-deps -e .
	touch $@

install: $(VENV)/.installed

# The lock files from pyproject.toml, keeping every version that still fits (`make upgrade` takes the newest).
lock: | $(UV)
	$(COMPILE) pyproject.toml --extra dev -o requirements/dev.txt $(LOCK_ARGS)
	$(COMPILE) pyproject.toml -o requirements/base.txt $(LOCK_ARGS)
	$(COMPILE) requirements/bootstrap.in -c requirements/dev.txt -o requirements/bootstrap.txt $(LOCK_ARGS)

upgrade:
	$(MAKE) lock LOCK_ARGS=--upgrade

# CI: the lock files are what `make lock` makes of pyproject.toml today (a dependency added, removed or re-ranged
# without `make lock` fails here).
lock-check: | $(UV)
	rm -rf var/lock-check && mkdir -p var/lock-check && cp requirements/*.txt var/lock-check/
	$(COMPILE) pyproject.toml --extra dev -o var/lock-check/dev.txt
	$(COMPILE) pyproject.toml -o var/lock-check/base.txt
	$(COMPILE) requirements/bootstrap.in -c requirements/dev.txt -o var/lock-check/bootstrap.txt
	@for f in dev base bootstrap; do diff -u requirements/$$f.txt var/lock-check/$$f.txt \
	  || { echo "requirements/$$f.txt is out of step with pyproject.toml: run make lock" >&2; exit 1; }; done

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo
	$(BIN)/python manage.py load_machine_demo

# The app on the zero-set-up default: SQLite, tasks in-process, demo data and users.
demo-passwords: install
	$(BIN)/python manage.py demo_passwords

# A Celery worker takes every queue: `make run` starts one beside the server, `make worker` one for when REDIS_URL
# is set. Threads, not prefork's two children that would each hold Django and the statistics stack: half the
# memory on this 2-core machine (`make bench-memory`), and the long tasks spend their time in the database or in
# numpy, which release the interpreter lock. Agreement figures and machine raters run in a child process the
# worker ends when idle (concord.child_processes).
WORKER_ARGS := --queues ingest,summaries,statistics,celery --pool=threads --concurrency=2
SUPERVISE := $(BIN)/python -m concord.supervise

DEMO_PASSWORDS_FILE ?= var/demo-passwords.txt
run: demo
	@# The passwords last, framed, so that they are not lost in the install's output.
	@cat $(DEMO_PASSWORDS_FILE) 2>/dev/null || echo "The demo users' passwords: make demo-passwords"
	@echo "Concord on http://$(HOST):$(PORT)/ (another port: make run PORT=8001). Ctrl+C stops it."
	@# A worker beside the server on the folder broker (no Redis needed): long jobs run in the background
	@# with their progress bars, as in production, and its beat (-B) looks for notice digests due (printed to
	@# the console); it stops with the server.
	@# Celery's global options (-A, --quiet) go before the subcommand: after `worker` it refuses them and exits.
	@# concord.supervise starts the worker again if it fails.
	@$(SUPERVISE) $(BIN)/celery -A config --quiet worker -B --schedule var/celerybeat-schedule $(WORKER_ARGS) \
	  --loglevel=warning & worker=$$!; trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/python manage.py runserver $(HOST):$(PORT)

# A newcomer's quick run: both cores, the bounded but long tests (marked slow) left out. FULL=1 (CI, on
# PostgreSQL with real Celery workers) runs every test: all but the `alone` ones in two processes, a file to a
# process, then the `alone` ones, whose timings need the machine to themselves, one at a time; it names the
# slowest tests, the suite's time being CI's budget. Each test process keeps a Redis database of its own
# (tests/redis_per_process.py), so that two processes never take each other's tasks.
PYTEST = $(BIN)/python -m pytest -p tests.redis_per_process
test: install
ifdef FULL
	$(PYTEST) -n 2 --dist loadfile --durations=30 -m "not alone"
	$(PYTEST) --durations=5 -m alone
else
	$(PYTEST) -n 2 -m "not slow"
endif

# Started again whenever it exits with an error (a worker whose Redis drops mid-task can); Ctrl+C stops it.
worker: install
	$(SUPERVISE) $(BIN)/celery -A config worker $(WORKER_ARGS) --loglevel=info

# The manual (docs/) as a site in var/site; --strict fails on a broken link or a page left out of the nav.
docs: install
	$(BIN)/mkdocs build --strict --site-dir var/site

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m lint.complexity

# The Chinese catalogue: gather every message for people (needs GNU gettext), translate the new ones in
# concord/locale/zh_Hans/LC_MESSAGES/*.po, then compile. tests/test_translations.py fails on any left untranslated.
MESSAGE_ARGS := -l zh_Hans --no-location --ignore=.venv --ignore=staticfiles --ignore=bench --ignore=tests --ignore=bench-out
messages: install
	$(BIN)/python manage.py makemessages $(MESSAGE_ARGS) --no-obsolete
	$(BIN)/python manage.py makemessages $(MESSAGE_ARGS) --no-obsolete -d djangojs
	$(BIN)/python manage.py compilemessages -l zh_Hans --ignore=.venv

check-deploy: install
	DEBUG=0 SECRET_KEY=$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(50))') \
		ALLOWED_HOSTS=concord.example.org $(BIN)/python manage.py check --deploy --fail-level WARNING

# Benchmarks print figures; they are not tests. The corpus comes from the shared generator (same seed,
# same bytes every time); the database named by BENCH_DATABASE_URL is dropped and created anew.
SHARED ?= ../shared
BENCH_N ?= 40000
BENCH_CORPUS := bench-out/issues-$(BENCH_N).jsonl
# Sessions live in Redis, as in production (a session read costs no database query then).
BENCH_REDIS_URL ?= redis://127.0.0.1:6379/15
# The API throttle still counts every request (its cache traffic is part of the figures) but never refuses one.
BENCH_ENV := DEBUG=0 SECRET_KEY=benchmark-only-not-a-secret-0123456789abcdefghijklmnop REDIS_URL=$(BENCH_REDIS_URL) \
	API_THROTTLE_USER=1000000/minute

$(BENCH_CORPUS):
	mkdir -p bench-out
	$(BIN)/python $(SHARED)/bench/gen_issues.py --n $(BENCH_N) --out $@

bench-ingest: install $(BENCH_CORPUS)
	$(BENCH_ENV) $(BIN)/python bench/bench_ingest.py $(BENCH_CORPUS)

bench-label: install $(BENCH_CORPUS)
	$(BENCH_ENV) $(BIN)/python bench/bench_label.py $(BENCH_CORPUS)

bench-export: install $(BENCH_CORPUS)
	$(BENCH_ENV) $(BIN)/python bench/bench_export.py $(BENCH_CORPUS)

bench-agreement: install
	$(BENCH_ENV) $(BIN)/python bench/bench_agreement.py

bench-machine: install $(BENCH_CORPUS)
	$(BIN)/python bench/bench_machine.py $(BENCH_CORPUS)
	$(BIN)/python bench/bench_ppi.py
	$(BIN)/python bench/bench_jury.py

bench-memory: install
	$(BENCH_ENV) $(BIN)/python bench/bench_memory.py --worker-args "$(WORKER_ARGS)"

# Every operation at each size, one sitting (hours at a million reports; GROWTH_SIZES picks fewer).
GROWTH_SIZES ?= 10000,40000,160000,1000000
bench-growth: install
	$(BENCH_ENV) $(BIN)/python bench/bench_growth.py --generator $(SHARED)/bench/gen_issues.py \
		--sizes $(GROWTH_SIZES) --chart bench/growth.svg

# Several hosts on this machine (network namespaces; root, HAProxy, PgBouncer, replication allowed from
# 127.0.0.1): the several-hosts and replica tests, which print what they measured (how soon a dead web host is
# out, a dead worker host's job taken over, the open loop meanwhile). On the test database pytest makes beside
# BENCH_DATABASE_URL's.
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/concord_bench
bench-hosts: install
	DATABASE_URL=$(BENCH_DATABASE_URL) REDIS_URL=$(BENCH_REDIS_URL) CONCORD_REQUIRE_HOSTS=1 \
		$(BIN)/python -m pytest -s -p no:cacheprovider -q tests/hosts

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache staticfiles
