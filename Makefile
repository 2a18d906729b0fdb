# dchess build and test entry points. `make test` is what CI runs.
GO       ?= go
BIN      ?= bin/dchess
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
FUZZTIME ?= 100000x
# TAGS=openblas builds Gorgonia's float32 products on OpenBLAS through cgo
# (needs a C compiler and Debian's libopenblas0-pthread); the default is pure Go.
TAGS     ?=

.PHONY: build test unit fuzz bench lint docs quickstart slurm-test clean

build:
	$(GO) build -tags "$(TAGS)" -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/dchess

# The whole suite: vet, unit and integration tests, then each fuzz target briefly.
test: lint unit fuzz

unit:
	$(GO) test -count=1 -timeout 20m ./...
	@if ldconfig -p 2>/dev/null | grep -q 'libopenblas.so.0 ' && command -v cc >/dev/null; then \
		$(GO) test -count=1 -tags openblas ./models/nn ./models/diffusion; \
	else \
		echo "unit: OpenBLAS or a C compiler missing: the -tags openblas build is not tested"; \
		if [ "$${CI:-}" = true ]; then exit 1; fi; \
	fi

# Fuzz targets as package:FuzzName[@COUNT]; each runs FUZZTIME inputs (or its own COUNT, for a
# target whose every input touches the disk) on top of its committed seed corpus
# (a count, not a duration: with -fuzztime 5s FuzzParseSPRT once failed with "context deadline
# exceeded" as its time ran out, with no failing input).
FUZZ_TARGETS := ./internal/chess/pgn:FuzzReader ./dataset:FuzzDecodeRecord ./internal/chess/uci:FuzzParseInfo ./search/elo:FuzzParseSPRT ./search/elo:FuzzEstimatesStayFinite ./internal/chess/board:FuzzFromFEN ./internal/chess/board:FuzzParseUCI ./models/dcw:FuzzUnmarshal ./dataset/label:FuzzJournalReader \
	./search/player:FuzzParseSpec ./search/match:FuzzOpenJournal@20000x ./search/uciengine:FuzzCommands ./internal/chess/binpack:FuzzReader

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; count=$(FUZZTIME); \
		case $$name in *@*) count=$${name##*@}; name=$${name%@*};; esac; \
		echo "fuzz $$pkg $$name ($$count)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $$count $$pkg || exit 1; \
	done

# The command reference in docs/reference/commands, made from each command's --help,
# and the config reference in docs/reference/config, made from the code's default
# configs and field comments; a test fails when the checked-in pages differ from
# what this writes.
docs:
	$(GO) run ./cmd/dchess docs --out docs/reference/commands
	$(GO) run ./scripts/configdocs --out docs/reference/config

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# staticcheck at a pinned version, fetched by the go command on first use.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

# The README's first command: build, make sure Stockfish is there (apt-get
# installs it when run as root), then the whole pipeline on self-played data.
quickstart: build
	@sf="$${DCHESS_STOCKFISH:-$$(command -v stockfish || true)}"; \
	if [ -z "$$sf" ] && [ -x /usr/games/stockfish ]; then sf=/usr/games/stockfish; fi; \
	if [ -z "$$sf" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "quickstart: installing Stockfish with apt-get" >&2; \
			apt-get update -qq && apt-get install -y -qq stockfish >/dev/null || exit 1; \
		else \
			echo "quickstart: Stockfish not found: install it (sudo apt-get install stockfish) or set DCHESS_STOCKFISH" >&2; \
			exit 1; \
		fi; \
	fi
	$(BIN) pipeline run configs/quickstart.yaml

# The job-array path on a real, one-machine Slurm (as root; .ci/run calls it):
# label and match arrays with a task cancelled and resubmitted, merged and
# compared with unsharded runs. See scripts/cluster/slurm-test.sh.
slurm-test: build
	scripts/cluster/slurm-test.sh $(BIN)

clean:
	rm -rf bin
