# Agent Deck — the two commands that matter: `make run` and `make test`.

GO       ?= go
BIN      := bin/agent-deck
PKGS     := ./...
NODE_DIR := tests/node
# Fuzz targets run briefly in `make test`; longer with FUZZTIME=5m make fuzz.
FUZZTIME ?= 10s
# Each benchmark runs BENCHCOUNT times; the targets table shows the median. BENCH selects the
# benchmarks (a go test -bench pattern).
BENCHCOUNT ?= 3
BENCH      ?= .

.PHONY: all build run test test-deps check fmt vet staticcheck bench bench-readme fuzz clean

all: build

# The commit, its time and whether the tree was dirty, for `agent-deck version`: read from git
# here, because the Go toolchain stamps none when GOFLAGS says -buildvcs=false (CI, many images)
# or when the checkout is a linked git worktree (its .git is a file, which Go does not
# recognise). Empty outside a git work tree. Recursive (=), so only `build` asks git.
VCS_PKG      := github.com/agent-deck/agent-deck/cli
VCS_REVISION  = $(shell git rev-parse HEAD 2>/dev/null)
VCS_TIME      = $(shell git log -1 --format=%cI 2>/dev/null)
VCS_MODIFIED  = $(shell git status --porcelain 2>/dev/null | grep -q . && echo true)
VCS_LDFLAGS   = -X $(VCS_PKG).vcsRevision=$(VCS_REVISION) -X $(VCS_PKG).vcsTime=$(VCS_TIME) -X $(VCS_PKG).vcsModified=$(VCS_MODIFIED)

build:
	$(GO) build -ldflags "$(VCS_LDFLAGS)" -o $(BIN) ./cmd/agent-deck

## install: copy the binary to $(PREFIX)/bin (default ~/.local/bin), which should be on PATH, and
## its manual page to $(PREFIX)/share/man/man1
PREFIX ?= $(HOME)/.local
.PHONY: install man
install: build man
	install -d $(PREFIX)/bin $(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(PREFIX)/bin/agent-deck
	install -m 0644 $(BIN).1 $(PREFIX)/share/man/man1/agent-deck.1

## man: the manual page, generated from the command tree, at bin/agent-deck.1 (man ./bin/agent-deck.1)
man: build
	./$(BIN) man > $(BIN).1

## run: build and serve with the embedded PostgreSQL under $$AGENT_DECK_HOME (default ~/.agent-deck);
## another port or home: AGENT_DECK_ADDR=127.0.0.1:2220 AGENT_DECK_HOME=/tmp/deck2 make run
run: build
	./$(BIN) serve

## test-deps: the published MCP peers and clients the tests run against (npm, pinned by the lockfile)
test-deps: $(NODE_DIR)/node_modules/.package-lock.json

$(NODE_DIR)/node_modules/.package-lock.json: $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	npm ci --prefix $(NODE_DIR) --no-audit --no-fund --loglevel=error

## test: every test, with the race detector, then a short run of each fuzz target
test: test-deps
	$(GO) test -race -count=1 -timeout 40m $(PKGS)
	$(MAKE) --no-print-directory fuzz

## test-conformance-client: the MCP conformance suite's client scenarios against Agent Deck's
## downstream client and OAuth sign-in (part of test too; docs/conformance.md has the table)
.PHONY: test-conformance-client
test-conformance-client: test-deps
	$(GO) test -race -count=1 ./tests -run '^TestConformanceClient$$'

## fuzz: each fuzz target for FUZZTIME; fails on a real finding (scripts/fuzz.sh)
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) tool staticcheck $(PKGS)

## check: what runs before every commit
check: fmt vet staticcheck test

## bench: the performance targets, measured side by side; ends with the targets table (medians of
## BENCHCOUNT runs; raw go test -json output in bin/bench.json) and the growth curves. A missed
## target is reported, not a failure. One package at a time (-p 1): go test otherwise runs as
## many test binaries at once as there are cores, and benchmarks would share the machine.
bench: test-deps
	@mkdir -p bin
	$(GO) test -p 1 -run='^$$' -bench='$(BENCH)' -benchmem -count=$(BENCHCOUNT) -timeout 60m -json $(PKGS) | tee bin/bench.json | $(GO) run ./tests/benchtable $(BENCHTABLE_FLAGS)

## bench-readme: make bench, and write its figures (targets, misses, growth curves) into README.md's performance section
bench-readme:
	$(MAKE) --no-print-directory bench BENCHTABLE_FLAGS=-readme=README.md

clean:
	rm -rf bin
