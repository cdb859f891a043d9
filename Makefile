# Earshot — two commands on a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
# Debian packages the build, the tests and the demos use.
DEB_PACKAGES := libopenal-dev libsndfile1-dev libvorbis-dev libdbus-1-dev libpulse-dev pkg-config \
                ffmpeg sox espeak-ng dbus mpv mpv-mpris playerctl pulseaudio pulseaudio-utils \
                libclang-rt-14-dev soundstretch tmux pipewire pipewire-pulse wireplumber valgrind \
                libebur128-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build build-release demo test bench bench-against bench-table soak tsan assets docs docc-keys clean

include Makefile.fuzz.mk

## deps: install the Debian packages that are missing (nothing when all are present)
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$(echo " $$missing" | tr '\n' ' ')"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

## build-release: the whole package in release, every target (CI runs it once, before `make test`;
## a few minutes on 2 cores)
build-release: deps
	$(SWIFT) build -c release

## demo: render the showcase scene to out/showcase.wav + out/showcase.svg, the rooms scene (reverb
## zones and a wall) to out/rooms.wav + out/rooms.svg and the Orbit demo to out/demo.wav; play the showcase live when an output device opens (no device is not a failure)
demo: build
	@mkdir -p out
	$(SWIFT) run earshot render Demos/Scenes/showcase.yaml -o out/showcase.wav --plot out/showcase.svg
	$(SWIFT) run earshot render Demos/Scenes/rooms.yaml -o out/rooms.wav --plot out/rooms.svg
	$(SWIFT) run Orbit out/demo.wav
	@bin=$$($(SWIFT) build --show-bin-path)/earshot; \
	"$$bin" play Demos/Scenes/showcase.yaml || true   # no device: the CLI's one line says so; the renders are in out/

## test: the whole suite (debug build; the CLI and demos are built first, tests run them), the
## live tests beside the rest (Tests/run-suite.sh says why). The suite is XCTest; the last line
## sums it up as "N passed, N failed".
test: deps
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" Tests/run-suite.sh

## bench: release-build benchmarks, each against its baseline measured in the same run
bench: deps
	$(SWIFT) build -c release --product earshot
	$(SWIFT) build -c release --product earshot-bench
	.build/release/earshot-bench clips
	.build/release/earshot-bench limiter
	.build/release/earshot-bench loudness
	.build/release/earshot-bench music --seconds 600
	.build/release/earshot-bench scenes
	.build/release/earshot-bench parameters
	.build/release/earshot-bench rooms
	.build/release/earshot-bench beds
	.build/release/earshot-bench timelines
	.build/release/earshot-bench dialogue
	@for n in 256 1024 2048; do echo "== stress: $$n voices"; .build/release/earshot stress --voices $$n --seconds 10 || exit 1; done
	@echo "== stress: 10000 emitters, 1024 real"; .build/release/earshot stress --voices 10000 --max-real 1024 --seconds 10
	@for n in 256 1024; do echo "== stress: $$n voices with 1 and 2 reverb sends"; .build/release/earshot stress --voices $$n --seconds 10 --reverb || exit 1; done
	@echo "== play(sound) against play(clip), and play into a full pool"; .build/release/earshot stress --play-cost
	@for n in 1024 4096; do echo "== whole process: $$n voices, engine against raw OpenAL"; Benchmarks/whole-process-ratio.sh .build/release/earshot $$n 30 3 || exit 1; done
	@for n in 1024 4096; do echo "== instructions (callgrind): $$n voices, engine against raw OpenAL"; Benchmarks/callgrind-ratio.sh .build/release/earshot $$n 1 3 || exit 1; done
	@$(MAKE) --no-print-directory bench-table
	@[ -z "$(REV)" ] || $(MAKE) --no-print-directory bench-against   # `make bench REV=f12ab7b`: then side by side against REV

## bench-against: the working tree against REV (e.g. 0.8.0's f12ab7b) in one run: REV built in a
## temporary worktree under /tmp (removed afterwards), then side by side the callgrind instruction
## ratio at each of VOICES and `earshot stress --play-cost`. CPU heavy: two release builds, and
## callgrind runs ~50x slower (`make bench-against REV=f12ab7b VOICES=256` for a short run)
REV ?=
VOICES ?= 1024 4096
bench-against: deps
	@[ -n "$(REV)" ] || { echo "make bench-against: say which revision, e.g. REV=f12ab7b (0.8.0)"; exit 2; }
	Benchmarks/bench-against.sh "$(REV)" "$(VOICES)" 1 3

## bench-table: the voices-per-core table (earshot stress --find-limit, ~4 min), written into
## Benchmarks/README.md between its voices-per-core markers and printed
bench-table: deps
	$(SWIFT) build -c release --product earshot
	.build/release/earshot stress --find-limit --probe-seconds 2 > .build/voices-per-core.md
	@cat .build/voices-per-core.md
	@awk 'BEGIN { while ((getline line < ".build/voices-per-core.md") > 0) table = table line "\n" } \
	  /<!-- voices-per-core:begin -->/ { print; printf "%s", table; skip = 1; next } \
	  /<!-- voices-per-core:end -->/ { skip = 0 } !skip { print }' Benchmarks/README.md > .build/bench-readme.md \
	  && mv .build/bench-readme.md Benchmarks/README.md

## soak: a million play/stop/steal cycles (the test suite runs 200,000)
soak: deps
	EARSHOT_SOAK_CYCLES=1000000 $(SWIFT) test --filter ReliabilityTests.testSoak

## tsan: the concurrency tests under ThreadSanitizer
tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter 'ReliabilityTests|DeviceRecoveryTests|EventStreamTests|ShutdownRaceTests|SubsystemContractTests|VoiceFinishedTests|SourceProtocolTests|VoiceTimeTests'

## docc-keys: copy the key reference of Demos/Scenes/README.md (from "## Top level" to "## Errors")
## into the DocC catalog; SceneKeyReferenceTests fails when the two differ
KEYS_DOC := Sources/EarshotScenes/EarshotScenes.docc/SceneAndBankKeys.md
docc-keys:
	@{ sed -n '1,/^<!-- BEGIN generated/p' $(KEYS_DOC); sed -n '/^## Top level$$/,/^## Errors$$/p' Demos/Scenes/README.md | sed '$$d'; \
	  sed -n '/^<!-- END generated/,$$p' $(KEYS_DOC); } > $(KEYS_DOC).tmp && mv $(KEYS_DOC).tmp $(KEYS_DOC)

## docs: the DocC documentation of the library and the scenes module, as static HTML in out/docs
docs: deps
	@mkdir -p out/docs
	$(SWIFT) package --allow-writing-to-directory out/docs generate-documentation --target Earshot \
	  --output-path out/docs/Earshot --transform-for-static-hosting
	$(SWIFT) package --allow-writing-to-directory out/docs generate-documentation --target EarshotContent \
	  --output-path out/docs/EarshotContent --transform-for-static-hosting
	$(SWIFT) package --allow-writing-to-directory out/docs generate-documentation --target EarshotScenes \
	  --output-path out/docs/EarshotScenes --transform-for-static-hosting
	$(SWIFT) package --allow-writing-to-directory out/docs generate-documentation --target EarshotBanks \
	  --output-path out/docs/EarshotBanks --transform-for-static-hosting

## assets: regenerate every committed asset
assets: deps
	Assets/make-assets.sh

clean:
	rm -rf .build out
