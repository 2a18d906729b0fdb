# dchess build and test entry points. `make test` is what CI runs.
GO       ?= go
BIN      ?= bin/dchess
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
FUZZTIME ?= 5s

.PHONY: build test unit fuzz bench lint quickstart clean

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/dchess

# The whole suite: vet, unit and integration tests, then each fuzz target briefly.
test: lint unit fuzz

unit:
	$(GO) test -count=1 -timeout 20m ./...

# Fuzz targets as package:FuzzName; each runs for FUZZTIME on top of its committed seed corpus.
FUZZ_TARGETS := ./dataset/pgn:FuzzReader ./dataset:FuzzDecodeRecord ./search/uci:FuzzParseInfo ./search/elo:FuzzParseSPRT

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

quickstart: build
	./scripts/quickstart.sh

clean:
	rm -rf bin
