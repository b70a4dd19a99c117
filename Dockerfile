# One image for the web process (gunicorn) and the Celery worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

# The runtime's lock file, every package pinned and hashed; the project itself (no dependencies of its own left).
COPY pyproject.toml requirements/base.txt ./
RUN pip install --require-hashes --no-deps -r base.txt && pip install --no-deps .
COPY . .
RUN DEBUG=0 SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home concord && mkdir -p /app/media && chown concord /app/media
USER concord
EXPOSE 8000
# Workers, threads, keep-alive and preloading: gunicorn.conf.py.
CMD ["gunicorn", "config.wsgi:application"]
