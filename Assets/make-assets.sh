#!/usr/bin/env bash
# Regenerates every committed asset under Assets/ with Debian tools (sox, ffmpeg, espeak-ng).
# Deterministic: sox runs with -R (fixed noise seed), ffmpeg with -bitexact.
# Usage: Assets/make-assets.sh   (from anywhere; writes next to this script)
set -euo pipefail
cd "$(dirname "$0")"
for tool in sox ffmpeg espeak-ng; do
  command -v "$tool" >/dev/null || { echo "make-assets: $tool is missing (make deps installs it)" >&2; exit 1; }
done
mkdir -p Sounds Music Voice
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }

# --- Effects: mono PCM16 WAV -----------------------------------------------------------
# A footstep: a short burst of brown noise, band-limited, with a fast decay.
sox -R -n -r 44100 -c 1 -b 16 Sounds/step.wav synth 0.14 brownnoise lowpass 1800 fade q 0.003 0.14 0.12 norm -3
# A 1 kHz beep (0.25 s) for positioning checks.
sox -R -n -r 48000 -c 1 -b 16 Sounds/beep.wav synth 0.25 sine 1000 fade h 0.005 0.25 0.005 gain -6
# A coin pickup: two quick rising tones.
sox -R -n -r 44100 -c 1 -b 16 "$tmp/c1.wav" synth 0.07 sine 988 fade q 0.002 0.07 0.02 gain -4
sox -R -n -r 44100 -c 1 -b 16 "$tmp/c2.wav" synth 0.22 sine 1319 fade q 0.002 0.22 0.2 gain -4
sox "$tmp/c1.wav" "$tmp/c2.wav" Sounds/coin.wav
# An engine hum that loops seamlessly: 1.0 s holds a whole number of cycles of 110 Hz and 220 Hz.
sox -R -n -r 44100 -c 1 -b 16 Sounds/hum-loop.wav synth 1.0 sawtooth 110 synth 1.0 sine mix 220 lowpass 900 gain -8

# --- Effects: mono Apple IMA4 in CAF (4:1), the format iOS games preload -------------------
ff -i Sounds/step.wav -c:a adpcm_ima_qt -bitexact Sounds/step-ima4.caf
ff -i Sounds/coin.wav -c:a adpcm_ima_qt -bitexact Sounds/coin-ima4.caf

# --- A stereo PCM CAF (big-endian 16-bit, as Core Audio writes it) ---------------------------
sox -R -n -r 44100 -c 2 -b 16 "$tmp/wind.wav" synth 2.0 pinknoise pinknoise lowpass 700 tremolo 0.5 40 fade t 0.2 2.0 0.2 norm -10
ff -i "$tmp/wind.wav" -c:a pcm_s16be -bitexact Sounds/wind-stereo.caf

# --- Music: an 8 s piece that loops seamlessly (Ogg Vorbis) ----------------------------------
# Four 2 s chords; every partial has a whole number of cycles per chord and each chord fades in
# and out over 20 ms, so the end joins the start without a click.
chord() { # name f1 f2 f3 bass
  sox -R -n -r 44100 -c 2 -b 16 "$tmp/$1.wav" synth 2.0 sine "$2" sine "$3" sine "$4" sine "$5" \
      remix 1,2v0.6,3v0.8,4 2v0.8,3,4v0.6,1 fade q 0.02 2.0 0.02 norm -9
}
chord a 220 277 330 110
chord b 196 247 294 98
chord c 175 220 262 87.5
chord d 165 208 247 82.5
sox "$tmp/a.wav" "$tmp/b.wav" "$tmp/c.wav" "$tmp/d.wav" "$tmp/theme.wav"
ff -i "$tmp/theme.wav" -c:a libvorbis -q:a 3 -bitexact Music/theme.ogg
# An ambience bed to play under the theme (PCM WAV, so music streams through libsndfile too).
sox -R -n -r 22050 -c 2 -b 16 Music/ambience.wav synth 3.0 pinknoise pinknoise lowpass 400 fade q 0.05 3.0 0.05 norm -20

# --- Adaptive music (issue 29): stems and a fanfare at 120 bpm, 4/4 (a bar is 2 s) -------------
# Each is one bar long, so they loop on the bar line and start together with the theme's bars.
# Drums: a kick on every beat (0.5 s each). Bass: a root for two beats, a fifth for two.
for i in 1 2 3 4; do sox -R -n -r 44100 -c 1 -b 16 "$tmp/kick$i.wav" synth 0.5 sine 70 fade q 0.002 0.5 0.42 gain -10; done
sox "$tmp/kick1.wav" "$tmp/kick2.wav" "$tmp/kick3.wav" "$tmp/kick4.wav" "$tmp/drums.wav"
ff -i "$tmp/drums.wav" -c:a libvorbis -q:a 2 -bitexact Music/drums.ogg
sox -R -n -r 44100 -c 1 -b 16 "$tmp/b1.wav" synth 1.0 sawtooth 110 lowpass 500 fade q 0.02 1.0 0.02 gain -12
sox -R -n -r 44100 -c 1 -b 16 "$tmp/b2.wav" synth 1.0 sawtooth 165 lowpass 500 fade q 0.02 1.0 0.02 gain -12
sox "$tmp/b1.wav" "$tmp/b2.wav" "$tmp/bass.wav"
ff -i "$tmp/bass.wav" -c:a libvorbis -q:a 2 -bitexact Music/bass.ogg
# A fanfare: four rising notes, one per beat (the victory state's first segment).
for n in 523 659 784 1047; do sox -R -n -r 44100 -c 1 -b 16 "$tmp/f$n.wav" synth 0.5 square "$n" gain -14 lowpass 3000 fade q 0.01 0.5 0.1; done
sox "$tmp/f523.wav" "$tmp/f659.wav" "$tmp/f784.wav" "$tmp/f1047.wav" "$tmp/fanfare.wav"
ff -i "$tmp/fanfare.wav" -c:a libvorbis -q:a 2 -bitexact Music/fanfare.ogg

# --- A spoken cue ----------------------------------------------------------------------------
espeak-ng -v en -s 150 -w "$tmp/cue.wav" "Earshot ready."
sox "$tmp/cue.wav" -r 22050 -c 1 -b 16 Voice/ready.wav norm -3

# --- Dialogue lines (issue 42, Demos/Scenes/dialogue.yaml): espeak-ng in English and French ----
# Voice/{locale}/{key}.ogg: mono Ogg Vorbis at 11.025 kHz, quality 0 (4–9 KB each: speech, kept small).
line() { # locale voice key text
  mkdir -p "Voice/$1"
  espeak-ng -v "$2" -s 160 -w "$tmp/line.wav" "$4"
  sox "$tmp/line.wav" -r 11025 -c 1 -b 16 "$tmp/line-n.wav" norm -3
  ff -i "$tmp/line-n.wav" -c:a libvorbis -q:a 0 -bitexact "Voice/$1/$3.ogg"
}
line en en intro.captain.01 "Stay close. The gate is just ahead."
line fr fr intro.captain.01 "Restez près de moi. La porte est juste devant."
line en en intro.guard.01 "Halt! Who goes there?"
line fr fr intro.guard.01 "Halte ! Qui va là ?"
line en en intro.captain.02 "Friends. We have a pass."
line fr fr intro.captain.02 "Des amis. Nous avons un laissez-passer."
line en en bark.guard.idle "Another long night on the wall."
line fr fr bark.guard.idle "Encore une nuit sur le mur."
line en en bark.guard.grenade "Grenade!"
line fr fr bark.guard.grenade "Grenade !"

du -ch Sounds Music Voice | tail -n 1

# --- An ambisonic bed (issue 39): first-order AmbiX (ACN/SN3D), 4 channels, Ogg Vorbis ---------
# Encoded by hand with sox's remix from three mono sources: a high bird chirping at 60° (front
# left), a lower bird at -120° (behind, right), and wind as decorrelated noise in every channel.
# AmbiX first order of a source from azimuth a: W = s, Y = s sin a, Z = 0, X = s cos a.
mkdir -p Ambience
sox -R -n -r 24000 -c 1 -b 16 "$tmp/birdA.wav" synth 0.12 sine 3000-4500 fade q 0.005 0.12 0.05 pad 0 0.38 repeat 5 gain -8
sox -R -n -r 24000 -c 1 -b 16 "$tmp/birdB.wav" synth 0.2 sine 1800-2400 fade q 0.01 0.2 0.08 pad 0.25 0.55 repeat 3 gain -10
sox -R -n -r 24000 -c 4 -b 16 "$tmp/wind4.wav" synth 3.0 brownnoise brownnoise brownnoise brownnoise lowpass 600 gain -14
sox -M "$tmp/birdA.wav" "$tmp/birdB.wav" "$tmp/wind4.wav" -c 4 "$tmp/forest.wav" \
    remix 1v0.5,2v0.5,3v0.5 1v0.433,2v-0.433,4v0.5 5v0.25 1v0.25,2v-0.25,6v0.5 trim 0 3.0
ff -i "$tmp/forest.wav" -c:a libvorbis -q:a 3 -bitexact Ambience/forest-foa.ogg
