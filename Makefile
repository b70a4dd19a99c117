# Two commands for a newcomer: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install migrate demo worker lint check-deploy clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstalls only when the dependency list changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo

# The app on the zero-set-up default: SQLite, tasks in-process, demo data and users.
run: demo
	@echo "Concord on http://$(HOST):$(PORT)/ — log in as lead, ann1, ann2 or ann3."
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# The whole suite. With DATABASE_URL and REDIS_URL set it runs on PostgreSQL with a real Celery worker.
test: install
	$(BIN)/python -m pytest

# A Celery worker, for when REDIS_URL is set.
worker: install
	$(BIN)/celery -A concord worker --loglevel=info

lint: install
	$(BIN)/ruff check .

check-deploy: install
	DEBUG=0 SECRET_KEY=$$($(BIN)/python -c 'import secrets; print(secrets.token_urlsafe(50))') \
		ALLOWED_HOSTS=concord.example.org $(BIN)/python manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache staticfiles
