"""Test speech: sentences spoken by espeak-ng (two voices, other languages) laid under
generated clips at known times, and the ground truth of what is said when.

espeak-ng is a Debian package (scripts/setup installs it). Its speech is robotic but
real speech audio: Whisper has to hear it, no text is passed along.
"""

from __future__ import annotations

import io
import os
import subprocess
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

RATE = 16_000
VOICES = {"a": "en-us", "b": "en-gb+f3"}  # an American man and a British woman


@dataclass(frozen=True)
class Line:
    start: float  # when the voice begins, seconds on the picture's clock
    text: str
    voice: str = "a"  # a key of VOICES, or an espeak-ng voice name


@dataclass(frozen=True)
class Spoken:
    start: float  # first sample above the silence floor
    end: float  # last one
    text: str
    voice: str


@cache
def speak(text: str, voice: str = "a", words_per_minute: int = 150) -> np.ndarray:
    """``text`` spoken, as mono float32 at RATE, silence trimmed off both ends."""
    out = subprocess.run(["espeak-ng", "-v", VOICES.get(voice, voice), "-s", str(words_per_minute), "--stdout", text],
                         capture_output=True, check=True).stdout
    with wave.open(io.BytesIO(out)) as wav:
        rate = wav.getframerate()
        pcm = np.frombuffer(wav.readframes(wav.getnframes()), np.int16).astype(np.float32) / 32768
    times = np.arange(int(len(pcm) * RATE / rate)) / RATE
    samples = np.interp(times, np.arange(len(pcm)) / rate, pcm).astype(np.float32)
    loud = np.flatnonzero(np.abs(samples) > 0.01)
    return samples[loud[0]:loud[-1] + 1]


def soundtrack(lines: list[Line], duration: float) -> tuple[np.ndarray, list[Spoken]]:
    """The lines laid on ``duration`` seconds of silence, and when each is really heard."""
    track = np.zeros(int(duration * RATE), np.float32)
    spoken = []
    for line in lines:
        voice = speak(line.text, line.voice)
        at = int(line.start * RATE)
        part = voice[:max(0, len(track) - at)]
        track[at:at + len(part)] += part
        spoken.append(Spoken(line.start, line.start + len(part) / RATE, line.text, line.voice))
    return track, spoken


def write_wav(path: Path, samples: np.ndarray, rate: int = RATE, channels: int = 1) -> Path:
    pcm = (np.clip(samples, -1, 1) * 32767).astype(np.int16)
    with wave.open(os.fspath(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(np.repeat(pcm[:, None], channels, axis=1).tobytes())
    return path


def mux(video: Path, sound: Path, out: Path, *audio_args: str) -> Path:
    """``video``'s picture with ``sound`` as its audio (AAC unless ``audio_args`` say otherwise)."""
    args = list(audio_args) or ["-c:a", "aac", "-b:a", "96k"]
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", os.fspath(video), "-i", os.fspath(sound),
                    "-map", "0:v", "-map", "1:a", "-c:v", "copy", *args, os.fspath(out)], check=True)
    return out


def speech_clip(folder: Path, name: str, video: Path, lines: list[Line], duration: float,
                *audio_args: str) -> tuple[Path, list[Spoken]]:
    """``video`` with ``lines`` spoken under it; the ground truth of what is heard when."""
    track, spoken = soundtrack(lines, duration)
    wav = write_wav(folder / f"{name}.wav", track)
    return mux(video, wav, folder / name, *audio_args), spoken
