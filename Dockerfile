# One image for the web process (gunicorn) and the Celery worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml ./
RUN pip install --upgrade pip && pip install .
COPY . .
RUN DEBUG=0 SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home concord && mkdir -p /app/media && chown concord /app/media
USER concord
EXPOSE 8000
# Workers, threads, keep-alive and preloading: gunicorn.conf.py.
CMD ["gunicorn", "concord.wsgi:application"]
