# gradwalk in a container: the app on port 8000, short links in SQLite on the volume /data
# (or in PostgreSQL with GRADWALK_DATABASE_URL; see docker-compose.yml). No browser inside:
# the tests run with `make test`.
FROM node:20-bookworm-slim AS page
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY static ./static
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /app
COPY pyproject.toml README.md __init__.py __main__.py hatch_build.py ./
COPY engine ./engine
COPY server ./server
COPY templates ./templates
COPY static ./static
COPY --from=page /app/static/dist ./static/dist
# Editable: the name gradwalk maps to /app (hatch_build.py), whose static/dist is built above.
RUN pip install --no-cache-dir -e . \
 && mkdir -p /data && chown nobody:nogroup /data
# The SQLite database (gradwalk.db, WAL files, migration lock) lives here; mount a volume.
ENV GRADWALK_DATA_DIR=/data
VOLUME /data
EXPOSE 8000
USER nobody
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# More processes on a machine with more cores: add "--workers", "4" (they share the database).
CMD ["gradwalk", "serve", "--host", "0.0.0.0", "--port", "8000"]
