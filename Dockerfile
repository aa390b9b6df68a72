# Parley: one Go binary with an embedded SQLite database.
# Build: docker build -t parley .
# Run:   docker run --rm -it -e OPENAI_API_KEY -v parley-data:/data parley chat

# --- build: cgo is required by mattn/go-sqlite3 ---
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=1 go build -tags sqlite_fts5 -trimpath \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/parley ./cmd/parley

# --- runtime: glibc + CA certificates, nothing else ---
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin parley \
 && mkdir -p /data && chown parley:parley /data
COPY --from=build /out/parley /usr/local/bin/parley
COPY config.example.yaml /etc/parley/config.example.yaml
USER parley
WORKDIR /data
ENV PARLEY_DATA_DIR=/data \
    PARLEY_HTTP_LISTEN=0.0.0.0:8080
VOLUME ["/data"]
EXPOSE 8080
ENTRYPOINT ["parley"]
CMD ["run"]
