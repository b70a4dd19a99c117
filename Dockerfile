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
# Annotators read for seconds between labels: with gunicorn's 2-second keep-alive most labels would open a new
# connection (a browser keeps its own for a minute or more).
CMD ["gunicorn", "concord.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "2", "--threads", "4", \
     "--keep-alive", "75"]
