# gradwalk in a container: the app on port 8000 (no browser; tests run with `make test`).
FROM node:20-bookworm-slim AS page
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY static ./static
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY server ./server
COPY templates ./templates
COPY static ./static
COPY --from=page /app/static/dist ./static/dist
RUN pip install --no-cache-dir -e .
EXPOSE 8000
USER nobody
CMD ["gradwalk", "serve", "--host", "0.0.0.0", "--port", "8000"]
