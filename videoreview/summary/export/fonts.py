"""Fonts for the PDF report.

The base font is Noto Sans (a dependency, so always there: Latin, Greek, Cyrillic).
For the scripts it lacks (CJK, Arabic, Hebrew, Indic, Thai, ...) fallback fonts are looked
up among the installed ones: with fontconfig's ``fc-match`` where it exists, else in the
usual Windows and macOS font folders. Only the fallbacks some text needs are used.

Noto Sans ships as a variable font. fpdf2 can instance it itself (``add_font(...,
variations=...)``) but that takes about 3 s per weight, every time; so the static Regular
and Bold are made once with fontTools and kept in the data folder.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ...paths import package_dir
from ...records import write_atomic

NOTO_PACKAGE = "fontpkg_noto_sans"
NOTO_FILE = "NotoSans[wdth,wght].ttf"
WEIGHTS = {"": 400, "B": 700}  # fpdf style -> wght axis value
DEJAVU_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}
DEJAVU_FOLDERS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF",
                  "/usr/local/share/fonts")

# Languages whose scripts Noto Sans lacks: fontconfig names the best installed font for each.
FALLBACK_LANGS = ("zh-cn", "zh-tw", "ja", "ko", "ar", "fa", "he", "hi", "bn", "ta", "te", "th", "km", "lo", "my",
                  "am", "ka", "hy", "si")
# Where fontconfig is rarely installed: fonts that ship with Windows and macOS, by file name.
WINDOWS_FONTS = ("msyh.ttc", "YuGothR.ttc", "malgun.ttf", "arial.ttf", "Nirmala.ttf", "LeelawUI.ttf",
                 "seguisym.ttf")
MACOS_FONTS = ("PingFang.ttc", "Hiragino Sans GB.ttc", "AppleSDGothicNeo.ttc", "GeezaPro.ttc", "Kohinoor.ttc",
               "Thonburi.ttc", "Arial Unicode.ttf")
MACOS_FOLDERS = ("/System/Library/Fonts", "/System/Library/Fonts/Supplemental", "/Library/Fonts")
FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc")


@dataclass(frozen=True)
class FontFile:
    path: Path
    index: int = 0  # face number in a .ttc / .otc collection


# -- the base font


def base_fonts() -> dict[str, FontFile]:
    """fpdf style ("" regular, "B" bold) -> font file: static Noto Sans, else DejaVu Sans."""
    fonts = _base_fonts()
    if not all(f.path.is_file() for f in fonts.values()):  # the data folder was cleaned since
        _base_fonts.cache_clear()
        fonts = _base_fonts()
    return fonts


@functools.cache
def _base_fonts() -> dict[str, FontFile]:
    try:
        return {style: FontFile(_static_noto(weight)) for style, weight in WEIGHTS.items()}
    except Exception as exc:  # fontTools or the file system: any failure leaves DejaVu as the way out
        dejavu = _dejavu()
        if dejavu is None:
            raise RuntimeError(f"no Unicode font for the report: Noto Sans could not be prepared ({exc}) "
                               "and DejaVu Sans is not installed") from exc
        return dejavu


def _noto_variable() -> Path:
    folder = package_dir(NOTO_PACKAGE)
    if folder is None:
        raise FileNotFoundError(f"the {NOTO_PACKAGE} package is not installed")
    path = folder / "files" / NOTO_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing")
    return path


def _static_noto(weight: int) -> Path:
    """The static instance of Noto Sans at ``weight``, made on first use and kept."""
    source = _noto_variable()
    stat = source.stat()
    target = _font_cache() / f"NotoSans-wght{weight}-{stat.st_size:x}{stat.st_mtime_ns:x}.ttf"
    if not target.is_file():
        from fontTools import ttLib
        from fontTools.varLib import instancer

        font = ttLib.TTFont(source)
        instancer.instantiateVariableFont(font, {"wght": weight, "wdth": 100}, inplace=True, static=True,
                                          updateFontNames=True)
        data = io.BytesIO()
        font.save(data)
        write_atomic(target, data.getvalue())
    return target


@functools.cache
def _font_cache() -> Path:
    """The data folder's fonts/, or a temporary folder where that cannot be written."""
    from ...paths import data_dir

    try:
        folder = data_dir() / "fonts"
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="videoreview-fonts-"))


def _dejavu() -> dict[str, FontFile] | None:
    for folder in DEJAVU_FOLDERS:
        paths = {style: Path(folder) / name for style, name in DEJAVU_FILES.items()}
        if all(p.is_file() for p in paths.values()):
            return {style: FontFile(p) for style, p in paths.items()}
    return None


# -- fallbacks for other scripts


def drawable(char: str) -> bool:
    """Whether ``char`` needs a glyph: not a space, control or format character (ZWJ,
    direction marks) nor a variation selector, which shaping handles without one."""
    category = unicodedata.category(char)
    if category in ("Cc", "Cf", "Zs", "Zl", "Zp"):
        return False
    code = ord(char)
    return not (0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF)


@functools.cache
def coverage(font: FontFile) -> frozenset[int]:
    """The code points ``font`` has glyphs for (empty when it cannot be read)."""
    from fontTools import ttLib

    try:
        with ttLib.TTFont(font.path, fontNumber=font.index, lazy=True) as ttfont:
            return frozenset(ttfont.getBestCmap() or ())
    except Exception:  # a broken or unsupported font file is simply not a candidate
        return frozenset()


def fallbacks_for(chars: Iterable[str]) -> tuple[list[FontFile], str]:
    """The installed fonts that draw the ``chars`` the base font lacks, and the characters
    none of them draws (sorted, as one string)."""
    base = coverage(base_fonts()[""])
    needed = {ord(c) for c in chars if drawable(c)} - base
    chosen = []
    for font in fallback_candidates() if needed else ():
        covered = needed & coverage(font)
        if covered:
            chosen.append(font)
            needed -= covered
        if not needed:
            break
    return chosen, "".join(chr(c) for c in sorted(needed))


@functools.cache
def fallback_candidates() -> tuple[FontFile, ...]:
    """Installed fonts for the scripts Noto Sans lacks, best first, without repeats."""
    fonts = [*_fontconfig_fonts(), *_known_fonts()]
    base = set(base_fonts().values())
    return tuple(f for f in dict.fromkeys(fonts) if f not in base and f.path.suffix.lower() in FONT_SUFFIXES)


def _fontconfig_fonts() -> list[FontFile]:
    exe = shutil.which("fc-match")
    if exe is None:
        return []
    found = []
    for pattern in [f":lang={lang}" for lang in FALLBACK_LANGS] + ["sans-serif"]:
        try:
            out = subprocess.run([exe, "--format=%{file}|%{index}", pattern], capture_output=True, text=True,
                                 timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        path, _, index = out.strip().rpartition("|")
        if path and Path(path).is_file():
            found.append(FontFile(Path(path), int(index) if index.isdigit() else 0))
    return found


def _known_fonts() -> list[FontFile]:
    if sys.platform == "win32":
        folders = [Path(os.environ.get("WINDIR", r"C:\Windows")) / "Fonts"]
        names = WINDOWS_FONTS
    elif sys.platform == "darwin":
        folders, names = [Path(f) for f in MACOS_FOLDERS], MACOS_FONTS
    else:
        return []
    return [FontFile(folder / name) for name in names for folder in folders if (folder / name).is_file()]
