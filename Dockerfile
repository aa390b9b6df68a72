# syntax=docker/dockerfile:1
# Parley: one Go binary with an embedded SQLite database.
#
# Build (this machine's architecture):  docker build -t parley .
# Build both (BuildKit/buildx):
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse HEAD) -t parley .
# Run: docker run --rm -it -e OPENAI_API_KEY -v parley-data:/data parley chat
#
# The builder always runs on the build machine's own architecture
# ($BUILDPLATFORM, no emulation) and cross-compiles for $TARGETARCH with
# Debian's cross compiler, the same way as .ci/release, which it runs.
# Needs BuildKit (the default builder since Docker 23): the platform
# arguments and the RUN cache mounts are BuildKit's.

# --- build: cgo is required by mattn/go-sqlite3 ---
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETARCH
ARG BUILDARCH
# The C cross compiler and static libc for the target, when it is not the
# build machine's own architecture (gcc and libc6-dev are in the image).
RUN set -eux; \
    case "$TARGETARCH" in \
      "$BUILDARCH") pkgs="" ;; \
      arm64) pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;; \
      amd64) pkgs="gcc-x86-64-linux-gnu libc6-dev-amd64-cross" ;; \
      *) echo "unsupported TARGETARCH $TARGETARCH" >&2; exit 1 ;; \
    esac; \
    if [ -n "$pkgs" ]; then \
      apt-get update; \
      apt-get install -y --no-install-recommends $pkgs; \
      rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /src
COPY go.mod go.sum ./
# go.mod replaces two modules with the patched copies here (third_party/README.md).
COPY third_party ./third_party
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
ARG DATE=
# .dockerignore keeps .git out, so the version and commit come from the
# build arguments.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    VERSION="$VERSION" COMMIT="$COMMIT" DATE="$DATE" DIST=/out \
    .ci/release "$TARGETARCH" \
 && mv "/out/parley-linux-$TARGETARCH" /out/parley

# --- runtime: CA certificates and a shell for the shell tool ---
# The binary is static; debian-slim rather than distroless/scratch because
# the agent's shell tool runs commands with /bin/sh.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin parley \
 && mkdir -p /data/workspace && chown parley:parley /data /data/workspace
COPY --from=build /out/parley /usr/local/bin/parley
COPY config.example.yaml /etc/parley/config.example.yaml
USER parley
WORKDIR /data
ENV PARLEY_DATA_DIR=/data \
    PARLEY_HTTP_LISTEN=0.0.0.0:8080 \
    PARLEY_CONSOLE_LISTEN=0.0.0.0:8090
VOLUME ["/data"]
# 8090: the web console (docs/console.md); publish it on the host's
# loopback or behind a TLS proxy, never bare.
EXPOSE 8080 8090
# `parley healthcheck` GETs http://127.0.0.1:<port of http.listen>/healthz
# (no curl in the image). It reads the same configuration as `parley run`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["parley", "healthcheck"]
ENTRYPOINT ["parley"]
CMD ["run"]
