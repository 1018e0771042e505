# Targets a newcomer can guess. `make test` is what CI runs.
GO        ?= go
PKGS      ?= ./...
BIN       ?= bin/agent
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: all build run test test-short bench lint e2e fmt clean sim crash fuzz catalog

all: lint test

# Statically linked (CGO_ENABLED=0): cgo is on by default only for net's
# resolver and os/user, both also in pure Go; without it there is no ld.so
# and no libc in each run (peak RSS of `agent run` 22.4 → 21.1 MiB, issue 36).
build:
	@echo "building $(BIN) (the first build compiles everything, silently: a minute or more)"
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/agent

run:
	CGO_ENABLED=0 $(GO) run ./cmd/agent $(ARGS)

# -race turns on the compiler's pointer checks (checkptr) for every package.
# RACE leaves them out for modernc.org's SQLite, machine-translated C whose
# every pointer step they would check: internal/loop 116 → 73 s on a quiet
# machine (cmd/agent 65 → 60 s, tui the same). Our own code keeps them, and
# the race detector still covers everything.
RACE      ?= -race -gcflags='modernc.org/...=-d=checkptr=0'

# The whole suite with the race detector. The tmux end-to-end tests run when
# tmux is installed (see e2e). build/testprogress prints each package as it
# finishes and failures in full; pipefail keeps go test's exit code.
test: SHELL := bash
test: .SHELLFLAGS := -o pipefail -c
test:
	$(GO) vet $(PKGS)
	@# The README's other system: its build breaks where a file names a linux-only one.
	GOOS=darwin CGO_ENABLED=0 $(GO) build $(PKGS)
	@echo "go test $(PKGS): the first run compiles for minutes; packages are listed as they finish"
	$(GO) test $(RACE) -json -count=1 -timeout 15m $(PKGS) | TESTPROGRESS_MODULE=github.com/ctxloop/agent $(GO) run ./build/testprogress

test-short:
	$(GO) test -count=1 -short $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count=1 -timeout 60m $(PKGS)

# gofmt, go vet, and the house's sizes (build/housecheck: methods and fields
# per receiver, lines per file; issue 28).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run ./build/housecheck

# The embedded model catalog (internal/config/catalog_gen.go) from the
# models.dev data: MODELS_DEV is a checkout of its repository (dated by its
# last commit) or an api.json file (then DATE=YYYY-MM-DD).
catalog:
	$(GO) run ./build/catalog -from $(MODELS_DEV) $(if $(DATE),-date $(DATE)) -o internal/config/catalog_gen.go

fmt:
	gofmt -w $$(git ls-files '*.go')

# End-to-end tests of the real binary in tmux.
e2e:
	$(GO) test -count=1 -run 'E2E' -v ./cmd/agent/...

# Longer scripted sessions: writes sim-out/long-session.csv and .svg.
# `make test` runs TestLongSession with 60 honest and 40 hostile turns and
# TestMiscountedTokens with 20; here each runs TURNS turns.
sim:
	AGENT_SIM_TURNS=$${TURNS:-1000} AGENT_SIM_OUT=$(CURDIR)/sim-out $(GO) test -count=1 -run '^(TestLongSession|TestMiscountedTokens)$$' -v -timeout 30m ./internal/loop

# Kill -9 the real binary at 100 random moments and check recovery.
crash:
	AGENT_CRASH_TRIALS=$${TRIALS:-100} $(GO) test -count=1 -run '^TestCrashRecovery$$' -timeout 30m ./cmd/agent

# Run every fuzz target for FUZZTIME each (default 1m).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzStreamAssembly$$' -fuzztime $${FUZZTIME:-1m} ./internal/provider
	$(GO) test -run '^$$' -fuzz '^FuzzCoalesce$$' -fuzztime $${FUZZTIME:-1m} ./internal/loop
	$(GO) test -run '^$$' -fuzz '^FuzzToModelMessages$$' -fuzztime $${FUZZTIME:-1m} ./internal/loop
	$(GO) test -run '^$$' -fuzz '^FuzzTruncate$$' -fuzztime $${FUZZTIME:-1m} ./internal/context/truncate
	$(GO) test -run '^$$' -fuzz '^FuzzShellGrantAgainstBash$$' -fuzztime $${FUZZTIME:-1m} ./internal/tools
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $${FUZZTIME:-1m} ./internal/tui/markdown/gfm
	$(GO) test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $${FUZZTIME:-1m} ./internal/tui/markdown/gfm
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $${FUZZTIME:-1m} ./internal/tui/diffview
	$(GO) test -run '^$$' -fuzz '^FuzzMatchesGitCheckIgnore$$' -fuzztime $${FUZZTIME:-1m} ./internal/tools/gitignore
	$(GO) test -run '^$$' -fuzz '^FuzzRequestCache$$' -fuzztime $${FUZZTIME:-1m} ./internal/loop
	$(GO) test -run '^$$' -fuzz '^FuzzSanitize$$' -fuzztime $${FUZZTIME:-1m} ./internal/tools
	$(GO) test -run '^$$' -fuzz '^FuzzStrip$$' -fuzztime $${FUZZTIME:-1m} ./internal/termsafe
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $${FUZZTIME:-1m} ./internal/tui/markdown
	$(GO) test -run '^$$' -fuzz '^FuzzGrepPrefilter$$' -fuzztime $${FUZZTIME:-1m} ./internal/tools
	$(GO) test -run '^$$' -fuzz '^FuzzReadMessage$$' -fuzztime $${FUZZTIME:-1m} ./internal/lsp
	$(GO) test -run '^$$' -fuzz '^FuzzOpenWindow$$' -fuzztime $${FUZZTIME:-1m} ./internal/loop
	$(GO) test -run '^$$' -fuzz '^FuzzPackHistory$$' -fuzztime $${FUZZTIME:-1m} ./internal/loop
	$(GO) test -run '^$$' -fuzz '^FuzzAdler32UpdateIsHashAdler32$$' -fuzztime $${FUZZTIME:-1m} ./internal/snapshot
	$(GO) test -run '^$$' -fuzz '^FuzzStateDecodesAsEncodingJSON$$' -fuzztime $${FUZZTIME:-1m} ./internal/storage
	$(GO) test -run '^$$' -fuzz '^FuzzPiecesKeepTheText$$' -fuzztime $${FUZZTIME:-1m} ./internal/webfetch
	$(GO) test -run '^$$' -fuzz '^FuzzAppendMessageIsMarshalJSON$$' -fuzztime $${FUZZTIME:-1m} ./internal/provider

clean:
	rm -rf bin
