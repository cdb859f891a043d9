#!/usr/bin/env bash
# Seeds for `make fuzz`: tiny real files from ffmpeg and sox (every container and codec the
# decoders meet) in CORPUS/audio, and the demo scenes in CORPUS/scene. Deterministic.
set -euo pipefail
corpus=$1
mkdir -p "$corpus/audio" "$corpus/scene"
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
# MP3 (libsndfile 1.2 reads it through libmpg123): MPEG-2.5 mono at 8 kHz with an ID3v2 tag and
# a Xing/LAME header, MPEG-1 stereo at 44.1 kHz, and a bare CBR stream (no tag, no Xing header).
ff -ac 1 -c:a libmp3lame -b:a 16k "$corpus/audio/mono-8k.mp3"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=0.1" -ac 2 -c:a libmp3lame -b:a 64k "$corpus/audio/stereo-44k.mp3"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "sine=frequency=440:sample_rate=22050:duration=0.1" -ac 1 -c:a libmp3lame -b:a 32k -write_xing 0 -id3v2_version 0 "$corpus/audio/bare-22k.mp3"
