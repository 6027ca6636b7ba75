# Memora: the two set-up commands are `make demo` and `make test`.
SWIFT ?= swift
DEMO_DIR ?= demo-output

.PHONY: demo test bench deps build release lint clean

## Install missing Debian packages (as root) or print the command, then build.
deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product memora

## Generate a sample photo library with the real encoders and run the main job on it.
demo: release
	.build/release/memora demo --output $(DEMO_DIR)

## Layering check, every test, then the SIGKILL test of the caption writer.
test: deps lint
	$(SWIFT) test
	@scripts/kill-test.sh

lint:
	@scripts/check-layering.sh

## Benchmarks against peers measured in the same run (release build; installs Pillow with pip if missing).
bench: deps
	@scripts/bench.sh

clean:
	rm -rf .build $(DEMO_DIR)
