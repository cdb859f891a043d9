#!/usr/bin/env bash
# Seeds for `make fuzz`: tiny real files from ffmpeg and sox (every container and codec the
# decoders meet) in CORPUS/audio, the demo scenes in CORPUS/scene and banks in CORPUS/bank.
# Deterministic.
set -euo pipefail
corpus=$1
mkdir -p "$corpus/audio" "$corpus/scene" "$corpus/bank"
src="sine=frequency=440:sample_rate=8000:duration=0.05"
ff() { ffmpeg -hide_banner -loglevel error -y -f lavfi -i "$src" "$@"; }
ff -ac 1 -c:a pcm_s16le "$corpus/audio/s16.wav"
ff -ac 2 -c:a pcm_s24le "$corpus/audio/s24-stereo.wav"
ff -ac 1 -c:a pcm_f32le "$corpus/audio/f32.wav"
ff -ac 1 -c:a adpcm_ima_wav "$corpus/audio/ima.wav"
ff -ac 1 -c:a pcm_s16be "$corpus/audio/s16.aiff"
ff -ac 1 -c:a flac "$corpus/audio/mono.flac"
ff -ac 2 -c:a libvorbis "$corpus/audio/stereo.ogg"
ff -ac 1 -c:a libvorbis "$corpus/audio/mono.ogg"
ff -ac 1 -ar 48000 -c:a libopus "$corpus/audio/mono.opus"
ff -ac 1 -c:a pcm_s16be "$corpus/audio/lpcm.caf"
ff -ac 2 -c:a adpcm_ima_qt "$corpus/audio/ima4.caf"
ff -ac 1 -c:a pcm_alaw "$corpus/audio/alaw.caf"
sox -n -r 8000 -c 1 -b 8 "$corpus/audio/u8.wav" synth 0.05 sine 440
sox -n -r 8000 -c 1 -b 16 "$corpus/audio/s16.aifc" synth 0.05 sine 440
cp Demos/Scenes/*.yaml "$corpus/scene/"
# Banks (issue 28): the demo's, and small ones that include each other in /dev/shm/fuzz (where
# the bank harness resolves its includes), a diamond and a cycle among them.
cp Demos/Bank/game.yaml "$corpus/bank/"
mkdir -p /dev/shm/fuzz
printf 'clips: { s: %s/Assets/Sounds/step.wav, n: { file: %s/Assets/Sounds/step.wav, loudness: -20, gain: -1 } }\nsounds: { step: { clips: [s, n], gain: -3 } }\n' "$PWD" "$PWD" > /dev/shm/fuzz/common.yaml
printf 'include: common.yaml\nsounds: { walk: { clips: [s], limit: { count: 2 } } }\n' > /dev/shm/fuzz/left.yaml
printf 'include: [common.yaml, left.yaml]\nsnapshots: { p: { buses: { sfx: { gain: -6 } } } }\n' > /dev/shm/fuzz/right.yaml
printf 'include: loop.yaml\n' > /dev/shm/fuzz/loop.yaml
printf 'include: [left.yaml, right.yaml]\nbuses: { x: { gain: -1 } }\n' > "$corpus/bank/diamond.yaml"
printf 'include: loop.yaml\n' > "$corpus/bank/cycle.yaml"
cp /dev/shm/fuzz/right.yaml "$corpus/bank/right.yaml"
# MP3 (libsndfile 1.2 reads it through libmpg123): MPEG-2.5 mono at 8 kHz with an ID3v2 tag and
# a Xing/LAME header, MPEG-1 stereo at 44.1 kHz, and a bare CBR stream (no tag, no Xing header).
ff -ac 1 -c:a libmp3lame -b:a 16k "$corpus/audio/mono-8k.mp3"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=0.1" -ac 2 -c:a libmp3lame -b:a 64k "$corpus/audio/stereo-44k.mp3"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "sine=frequency=440:sample_rate=22050:duration=0.1" -ac 1 -c:a libmp3lame -b:a 32k -write_xing 0 -id3v2_version 0 "$corpus/audio/bare-22k.mp3"
# Markers (no encoder writes WAV cue/smpl or CAF mark/regn chunks: python3 appends them, built
# from the specifications): a WAV with cue points, labl/ltxt names and lengths and a smpl loop; a
# CAF with mark, regn and strg chunks; an Ogg Vorbis file with CHAPTERxxx comments (ffmpeg); and
# comment lines for the chapters parser.
mkdir -p "$corpus/chapters"
python3 - "$corpus/audio/s16.wav" "$corpus/audio/cues.wav" "$corpus/audio/marks.caf" <<'PY'
import struct, sys
src, wav, caf = sys.argv[1:4]
d = bytearray(open(src, "rb").read())
def ch(i, b): return i + struct.pack("<I", len(b)) + b + (b"\0" if len(b) % 2 else b"")
cue = struct.pack("<I", 2) + struct.pack("<II4sIII", 1, 100, b"data", 0, 0, 100) + struct.pack("<II4sIII", 2, 300, b"data", 0, 0, 300)
adtl = b"adtl" + ch(b"labl", struct.pack("<I", 1) + b"hit\0") + ch(b"labl", struct.pack("<I", 2) + b"caf\xe9\0") \
    + ch(b"ltxt", struct.pack("<II4sHHHH", 2, 50, b"rgn ", 0, 0, 0, 0)) + ch(b"note", struct.pack("<I", 1) + b"n\0")
smpl = struct.pack("<9I", 0, 0, 125000, 60, 0, 0, 0, 1, 0) + struct.pack("<6I", 2, 0, 300, 349, 0, 0)
d += ch(b"cue ", cue) + ch(b"LIST", adtl) + ch(b"smpl", smpl)
struct.pack_into("<I", d, 4, len(d) - 8)
open(wav, "wb").write(d)
def c(i, b): return i + struct.pack(">q", len(b)) + b
def m(t, f, i): return t + struct.pack(">dIbbbbII", f, i, 0, 0, 0, 0, 0, 0)
b = b"caff" + struct.pack(">HH", 1, 0) + c(b"desc", struct.pack(">d4sIIIII", 8000.0, b"lpcm", 0, 2, 1, 1, 16))
b += c(b"mark", struct.pack(">II", 0, 2) + m(b"\0\0\0\0", 100.0, 1) + m(b"\0\0\0\0", 300.0, 2))
b += c(b"regn", struct.pack(">II", 0, 1) + struct.pack(">III", 3, 0, 2) + m(b"rbeg", 50.0, 3) + m(b"rend", 150.0, 3))
b += c(b"strg", struct.pack(">I", 3) + struct.pack(">Iq", 1, 0) + struct.pack(">Iq", 2, 4) + struct.pack(">Iq", 3, 9) + b"hit\0line\0chorus\0")
b += c(b"data", struct.pack(">I", 0) + b"\0\x10" * 400)
open(caf, "wb").write(b)
PY
ff -ac 1 -c:a libvorbis -metadata CHAPTER000=00:00:00.010 -metadata CHAPTER000NAME=hit -metadata CHAPTER001=00:00:00.03 \
  -metadata CHAPTER001NAME=line "$corpus/audio/chapters.ogg"
printf '\x01\x00CHAPTER000=00:00:00.250\nCHAPTER000NAME=hit\nchapter001=1:02:03.123456789\nCHAPTER001NAME=l\xc3\xa4uft\n' > "$corpus/chapters/two.txt"
# The monitor protocol (issue 30): request lines a client sends, and the lines of a recording
# (hello, frames, pong, error, bye) as `earshot monitor --record` writes them.
mkdir -p "$corpus/monitor"
printf '%s\n' '{"request":"ping"}' '{"request":"pause"}' '{"request":"resume"}' '{"request":"rate","hz":30}' > "$corpus/monitor/requests"
cp Tests/Fuzz/monitor-seeds/*.jsonl "$corpus/monitor/" 2>/dev/null || true
