# syntax=docker/dockerfile:1
# Agent Deck as a container: one static binary (no cgo, no libc), run as an unprivileged user,
# against an external PostgreSQL (AGENT_DECK_DATABASE_URL or AGENT_DECK_DATABASE_URL_FILE); the
# embedded database is for one machine, not for containers. Run as many replicas as you like on
# one database with one shared AGENT_DECK_SECRET_KEY (or AGENT_DECK_SECRET_KEY_FILE); see
# "Running a team hub" in README.md and deploy/compose.yaml.
#
#   docker build -t agent-deck .
#
# The base images are build arguments, for mirrors and pinned digests.
ARG GO_IMAGE=docker.io/library/golang:1.26.8-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/agent-deck ./cmd/agent-deck

# distroless/static: CA certificates (for https downstream services), tzdata, a nonroot user
# (65532) and its home, nothing else: no shell, no package manager.
FROM ${RUNTIME_IMAGE}
COPY --from=build /out/agent-deck /usr/local/bin/agent-deck
USER 65532:65532
ENV AGENT_DECK_HOME=/home/nonroot/.agent-deck \
    AGENT_DECK_ADDR=0.0.0.0:1110 \
    AGENT_DECK_ALLOW_REMOTE=1 \
    AGENT_DECK_LOG_FORMAT=json
EXPOSE 1110
# The data home keeps only this replica's files (its admin token, spilled tool results); every
# row that matters is in PostgreSQL.
VOLUME ["/home/nonroot/.agent-deck"]
ENTRYPOINT ["/usr/local/bin/agent-deck"]
CMD ["serve"]
