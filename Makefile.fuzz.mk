# Fuzzing every byte that comes from outside with libFuzzer (`make fuzz`; not part of `make test`).
# The main Makefile includes this file. One binary per target, built with swiftc
# -sanitize=fuzzer,address from the sources it needs (no OpenAL); Tests/Fuzz/README.md has the
# figures of the long runs.
#
#   make fuzz                       every target, FUZZ_RUNS executions each (default 100,000)
#   make fuzz FUZZ_RUNS=10000000    the long run
#   make fuzz FUZZ_TARGETS=vorbis   some targets only
#   FUZZ_ARGS=...                   more libFuzzer flags
#   make struct-fuzz                the structure-aware fuzzer: STRUCT_CASES cases (default 1,000,000)
#                                   per container of STRUCT_CONTAINERS (caf wav aiff flac ogg mp3)
#   make struct-fuzz STRUCT_MARKERS=1   the same cases through the marker readers only
FUZZ_RUNS ?= 100000
FUZZ_ARGS ?=
FUZZ_TARGETS ?= caf sndfile vorbis memory sniff music-sndfile music-vorbis mp3 markers chapters scene bank monitor-request monitor-message
FUZZ_DIR := .build/fuzz
FUZZ_SWIFTC := swiftc -parse-as-library -sanitize=fuzzer,address -O -g -module-name EarshotFuzz
FUZZ_C_MODULES := -Xcc -fmodule-map-file=Sources/CSndFile/module.modulemap -Xcc -fmodule-map-file=Sources/CVorbisFile/module.modulemap \
	-I Sources/CSndFile -I Sources/CVorbisFile $(shell pkg-config --cflags-only-I sndfile vorbisfile | sed 's/-I/-Xcc -I/g')

CLIP_SOURCES := Sources/Earshot/Clips/CAFFile.swift Sources/Earshot/Clips/CAFReader.swift Sources/Earshot/Clips/CAFReader+File.swift Sources/Earshot/Clips/IMA4Decoder.swift \
	Sources/Earshot/Clips/PCMAudio.swift Sources/Earshot/Clips/DecodeOptions.swift Sources/Earshot/Clips/ClipDecoder.swift \
	Sources/Earshot/Clips/SndFileDecoder.swift Sources/Earshot/Clips/SndFileDecoder+Memory.swift \
	Sources/Earshot/Clips/VorbisFileDecoder.swift Sources/Earshot/Clips/MemorySource.swift Sources/Earshot/Clips/FileBytes.swift \
	Sources/Earshot/Clips/RIFFCheck.swift Sources/Earshot/Clips/OggLinkCheck.swift Sources/Earshot/Clips/HeaderScan.swift Sources/Earshot/Clips/Truncation.swift \
	Sources/Earshot/Markers/Marker.swift Sources/Earshot/Markers/MarkerReader.swift Sources/Earshot/Markers/RIFFMarkerReader.swift \
	Sources/Earshot/Markers/CAFMarkerReader.swift Sources/Earshot/Markers/VorbisCommentMarkers.swift \
	Sources/Earshot/Music/MusicDecoder.swift Sources/Earshot/Music/SndFileStreamDecoder.swift Sources/Earshot/Music/VorbisStreamDecoder.swift \
	Sources/Earshot/Support/EarshotError.swift Sources/Earshot/Support/RawPath.swift Tests/Fuzz/FuzzShims.swift
CLIP_LIBS := -lsndfile -lvorbisfile

.PHONY: fuzz fuzz-build struct-fuzz

# The CAF reader and IMA4 decoder (their own harness).
$(FUZZ_DIR)/caf-fuzz: $(CLIP_SOURCES) Tests/Fuzz/CAFFuzz.swift Tests/Fuzz/FuzzMain.swift Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_SWIFTC) $(FUZZ_C_MODULES) $(CLIP_SOURCES) Tests/Fuzz/CAFFuzz.swift Tests/Fuzz/FuzzMain.swift $(CLIP_LIBS) -o $@

# The decoders and the marker readers: one binary per entry point, chosen by -D.
$(FUZZ_DIR)/%-fuzz: $(CLIP_SOURCES) Tests/Fuzz/DecoderFuzz.swift Tests/Fuzz/MarkerFuzz.swift Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_SWIFTC) -D FUZZ_$(shell echo $* | tr 'a-z-' 'A-Z_') $(FUZZ_C_MODULES) $(CLIP_SOURCES) Tests/Fuzz/DecoderFuzz.swift Tests/Fuzz/MarkerFuzz.swift $(CLIP_LIBS) -o $@

# The scene parser: the package's own modules built with the fuzzer's instrumentation
# (EARSHOT_FUZZ=1 adds the SceneFuzz executable to Package.swift), in a scratch folder of its own.
$(FUZZ_DIR)/scene-fuzz: Tests/Fuzz/SceneFuzz/SceneFuzz.swift $(wildcard Sources/EarshotContent/*/*.swift) Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	EARSHOT_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product SceneFuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
	cp .build-fuzz/release/SceneFuzz $@

# The bank parser (issue 28), the same way: bank text with includes resolved in the scratch folder.
$(FUZZ_DIR)/bank-fuzz: Tests/Fuzz/BankFuzz/BankFuzz.swift $(wildcard Sources/EarshotContent/*/*.swift) Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	EARSHOT_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product BankFuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
	cp .build-fuzz/release/BankFuzz $@

# The monitor protocol's parsers (issue 30): the requests a game's monitor reads from clients, and
# the lines `earshot monitor` reads from a game or a recording. Their own sources only.
MONITOR_SOURCES := Sources/Earshot/Monitor/MonitorRequest.swift Sources/Earshot/Monitor/MonitorMessage.swift \
	Sources/Earshot/Monitor/MonitorFrame.swift Sources/Earshot/Support/EarshotError.swift Sources/Earshot/Support/RawPath.swift \
	Tests/Fuzz/FuzzShims.swift
$(FUZZ_DIR)/monitor-request-fuzz $(FUZZ_DIR)/monitor-message-fuzz: $(MONITOR_SOURCES) Tests/Fuzz/MonitorFuzz.swift Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_SWIFTC) -D FUZZ_$(shell echo $(notdir $@) | sed 's/-fuzz$$//' | tr 'a-z-' 'A-Z_') $(MONITOR_SOURCES) Tests/Fuzz/MonitorFuzz.swift -o $@

fuzz-build: $(addprefix $(FUZZ_DIR)/,$(addsuffix -fuzz,$(FUZZ_TARGETS)))

# Seeds: small real files from ffmpeg and sox, and the demo scenes.
$(FUZZ_DIR)/corpus/.seeded:
	@mkdir -p $(FUZZ_DIR)/corpus
	@Tests/Fuzz/make-seeds.sh $(FUZZ_DIR)/corpus
	@touch $@

fuzz: fuzz-build $(FUZZ_DIR)/corpus/.seeded
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/work-$$t; \
	  echo "== fuzz $$t: $(FUZZ_RUNS) runs"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Fuzz/lsan-known.supp $(FUZZ_DIR)/$$t-fuzz -runs=$(FUZZ_RUNS) -max_len=$$( case $$t in scene|bank) echo 8192;; *) echo 65536;; esac ) -rss_limit_mb=2048 \
	    -timeout=20 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/$$t- $(FUZZ_ARGS) \
	    $(FUZZ_DIR)/work-$$t $(FUZZ_DIR)/corpus/$$( case $$t in scene|chapters|bank) echo $$t;; monitor-*) echo monitor;; *) echo audio;; esac ) Tests/Fuzz/regressions \
	    2>&1 | tail -12 || exit 1; \
	done

# The structure-aware fuzzer (Tests/Fuzz/StructFuzz): an in-process generator that writes valid
# container structures and mutates their fields (not libFuzzer; ASan on). One run per container;
# a run's result is its exit status, and struct-CONTAINER-current holds the case that killed it.
STRUCT_CASES ?= 1000000
STRUCT_CONTAINERS ?= caf wav aiff flac ogg mp3
STRUCT_SEED ?= 1
STRUCT_MARKERS ?= 0
$(FUZZ_DIR)/struct-fuzz: $(CLIP_SOURCES) $(wildcard Tests/Fuzz/StructFuzz/*.swift) Tests/Fuzz/MarkerFuzz.swift Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	swiftc -parse-as-library -sanitize=address -O -g -module-name EarshotFuzz $(FUZZ_C_MODULES) $(CLIP_SOURCES) \
	  $(wildcard Tests/Fuzz/StructFuzz/*.swift) Tests/Fuzz/MarkerFuzz.swift $(CLIP_LIBS) -o $@

struct-fuzz: $(FUZZ_DIR)/struct-fuzz $(FUZZ_DIR)/corpus/.seeded
	@for c in $(STRUCT_CONTAINERS); do \
	  echo "== struct-fuzz $$c: $(STRUCT_CASES) cases"; \
	  STRUCT_MARKERS=$(STRUCT_MARKERS) LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Fuzz/lsan-known.supp nice -n 10 $(FUZZ_DIR)/struct-fuzz $$c \
	    $(FUZZ_DIR)/corpus/audio $(STRUCT_CASES) $(STRUCT_SEED) $(FUZZ_DIR) 2>&1 | tail -12; \
	  status=$${PIPESTATUS[0]}; echo "== struct-fuzz $$c: exit $$status"; [ $$status = 0 ] || exit 1; \
	done

# Issue 24's structured fuzzers (not libFuzzer: generators of valid structures with values at
# and around their edges): scene values through validate and render, and random public API
# operations on a loopback engine. One release binary (the API fuzzer simulates device loss as
# the tests do, through a `package` call), in a scratch folder of its own. A run's result
# is its exit status (0: no finding); Tests/Fuzz/README.md has the figures.
#
#   make fuzz-values                                    both, the default sizes
#   make fuzz-values FUZZ_SCENES=100000 FUZZ_API_OPS=1000000 FUZZ_BANKS=10000 FUZZ_LINES=1000000 FUZZ_SEED=3
FUZZ_SCENES ?= 10000
FUZZ_BANKS ?= 2000
FUZZ_LINES ?= 100000
FUZZ_API_OPS ?= 100000
FUZZ_SEED ?= 1
.PHONY: fuzz-values
$(FUZZ_DIR)/earshot-fuzz: $(wildcard Tests/Fuzz/Generators/*.swift Tests/Fuzz/EarshotFuzz/*.swift Sources/Earshot/*/*.swift Sources/EarshotLinux/*.swift Sources/EarshotContent/*/*.swift Sources/EarshotScenes/*/*.swift Sources/EarshotBanks/*.swift) Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	swift build -c release --scratch-path .build-fuzz-values --product earshot-fuzz
	cp .build-fuzz-values/release/earshot-fuzz $@

fuzz-values: $(FUZZ_DIR)/earshot-fuzz
	@echo "== fuzz scene values: $(FUZZ_SCENES) scenes, seed $(FUZZ_SEED)"
	@nice -n 10 $(FUZZ_DIR)/earshot-fuzz scene-values $(FUZZ_SCENES) $(FUZZ_SEED) > $(FUZZ_DIR)/scene-values.log 2>&1; \
	  s=$$?; grep -v '^  ' $(FUZZ_DIR)/scene-values.log | tail -40; echo "exit status $$s"; exit $$s
	@echo "== fuzz banks: $(FUZZ_BANKS) banks, seed $(FUZZ_SEED)"
	@nice -n 10 $(FUZZ_DIR)/earshot-fuzz banks $(FUZZ_BANKS) $(FUZZ_SEED) > $(FUZZ_DIR)/banks.log 2>&1; \
	  s=$$?; grep -v '^  ' $(FUZZ_DIR)/banks.log | tail -40; echo "exit status $$s"; exit $$s
	@echo "== fuzz line tables and subtitle files: $(FUZZ_LINES) cases, seed $(FUZZ_SEED)"
	@nice -n 10 $(FUZZ_DIR)/earshot-fuzz lines $(FUZZ_LINES) $(FUZZ_SEED) > $(FUZZ_DIR)/lines.log 2>&1; \
	  s=$$?; grep -v '^  ' $(FUZZ_DIR)/lines.log | tail -40; echo "exit status $$s"; exit $$s
	@echo "== fuzz API operations: $(FUZZ_API_OPS) operations, seed $(FUZZ_SEED)"
	@nice -n 10 $(FUZZ_DIR)/earshot-fuzz api $(FUZZ_API_OPS) $(FUZZ_SEED) > $(FUZZ_DIR)/api.log 2>&1; \
	  s=$$?; grep -v '^  ' $(FUZZ_DIR)/api.log | tail -40; echo "exit status $$s"; exit $$s
