# Fuzzing the CAF reader and IMA4 decoder with libFuzzer (`make fuzz`; not part of `make test`).
# The main Makefile includes this file. FUZZ_RUNS bounds the run (default 1,000,000 executions);
# FUZZ_ARGS passes more libFuzzer flags (e.g. FUZZ_ARGS=-jobs=2).
FUZZ_RUNS ?= 1000000
FUZZ_ARGS ?=
FUZZ_DIR := .build/fuzz
FUZZ_BIN := $(FUZZ_DIR)/caf-fuzz
FUZZ_CORPUS := $(FUZZ_DIR)/corpus
FUZZ_SOURCES := Sources/Earshot/Clips/CAFReader.swift Sources/Earshot/Clips/IMA4Decoder.swift \
	Sources/Earshot/Clips/PCMAudio.swift Sources/Earshot/Support/EarshotError.swift \
	Tests/Fuzz/CAFFuzz.swift Tests/Fuzz/FuzzMain.swift Tests/Fuzz/FuzzShims.swift

.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BIN)

$(FUZZ_BIN): $(FUZZ_SOURCES) Makefile.fuzz.mk
	@mkdir -p $(FUZZ_DIR)
	swiftc -parse-as-library -sanitize=fuzzer,address -O -g -module-name EarshotFuzz $(FUZZ_SOURCES) -o $@

# Seeds: small real files from ffmpeg (IMA4 mono/stereo, lpcm variants) when ffmpeg is present.
$(FUZZ_CORPUS)/.seeded:
	@mkdir -p $(FUZZ_CORPUS)
	@if command -v ffmpeg >/dev/null; then \
	  for spec in "adpcm_ima_qt:1" "adpcm_ima_qt:2" "pcm_s16be:1" "pcm_s24le:2" "pcm_f32le:1" "pcm_f64be:1" "pcm_s8:2"; do \
	    codec=$${spec%:*}; ch=$${spec#*:}; \
	    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=0.02" \
	      -ac $$ch -c:a $$codec $(FUZZ_CORPUS)/seed-$$codec-$$ch.caf || exit 1; \
	  done; \
	fi
	@touch $@

fuzz: $(FUZZ_BIN) $(FUZZ_CORPUS)/.seeded
	$(FUZZ_BIN) -runs=$(FUZZ_RUNS) -max_len=4096 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_ARGS) $(FUZZ_CORPUS)
