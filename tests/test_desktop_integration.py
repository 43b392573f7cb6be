"""Linux desktop integration: packaging/linux/install.sh, its .desktop entry and the app's icons."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINUX = ROOT / "packaging" / "linux"
INSTALL = LINUX / "install.sh"
DESKTOP = LINUX / "videoreview.desktop"
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)

# The MIME types the entry lists and the extensions (videoreview.media.probe.VIDEO_EXTENSIONS)
# each stands for in shared-mime-info; aliases that older systems still send are listed too.
MIME_EXTENSIONS = {
    "video/mp4": {".mp4", ".m4v", ".f4v"},
    "video/x-m4v": {".m4v"},
    "video/quicktime": {".mov", ".qt"},
    "video/x-matroska": {".mkv"},
    "video/webm": {".webm"},
    "video/x-msvideo": {".avi", ".divx"},
    "video/avi": {".avi"},
    "video/x-ms-wmv": {".wmv"},
    "application/vnd.ms-asf": {".asf"},
    "video/x-ms-asf": {".asf"},
    "video/x-flv": {".flv"},
    "video/mpeg": {".mpg", ".mpeg", ".m2v", ".vob"},
    "video/mp2t": {".ts", ".mts", ".m2ts"},
    "video/3gpp": {".3gp"},
    "video/3gpp2": {".3g2"},
    "video/ogg": {".ogv"},
    "video/dv": {".dv"},
    "application/mxf": {".mxf"},
}
NO_MIME_TYPE = {".y4m"}  # YUV4MPEG2 has no registered MIME type


def read_desktop(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",), comment_prefixes=("#",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    return struct.unpack(">II", head[16:24])


def validate(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        return  # checked where desktop-file-utils is installed (scripts/setup installs it)
    done = subprocess.run([tool, str(path)], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


@pytest.fixture
def env(tmp_path):
    """install.sh's environment: every XDG folder and HOME inside tmp_path."""
    e = dict(os.environ)
    e.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
             XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    return e


def run_install(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(INSTALL), *args], env=env, capture_output=True, text=True, timeout=60)


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_desktop_entry_source():
    entry = read_desktop(DESKTOP)
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "videoreview %F"
    assert entry["Icon"] == "videoreview"
    assert entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == "videoreview"
    assert entry["Categories"].split(";")[:2] == ["AudioVideo", "Video"]
    validate(DESKTOP)


def test_mime_types_match_the_extensions_the_app_opens():
    from videoreview.media.probe import VIDEO_EXTENSIONS

    listed = [m for m in read_desktop(DESKTOP)["MimeType"].split(";") if m]
    assert len(listed) == len(set(listed))
    assert set(listed) == set(MIME_EXTENSIONS), "MimeType= and MIME_EXTENSIONS here must list the same types"
    assert "inode/directory" not in listed
    covered = set().union(*MIME_EXTENSIONS.values())
    assert covered <= VIDEO_EXTENSIONS, f"listed types the app does not open: {covered - VIDEO_EXTENSIONS}"
    assert VIDEO_EXTENSIONS - covered == NO_MIME_TYPE, (
        f"extensions the app opens with no MIME type in the .desktop file: {VIDEO_EXTENSIONS - covered - NO_MIME_TYPE}")


def test_install_then_uninstall(tmp_path, env):
    data = tmp_path / "data"
    exe = tmp_path / "bin dir" / "videoreview"  # a space: Exec= must quote it
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    # files of other apps in the folders the script writes to
    unrelated = {"applications/other-app.desktop", "icons/hicolor/48x48/apps/other-app.png",
                 "icons/hicolor/scalable/apps/other-app.svg"}
    for rel in unrelated:
        (data / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / rel).write_text("not ours\n")

    done = run_install(env, "--exec", str(exe))
    assert done.returncode == 0, done.stderr

    installed = data / "applications" / "videoreview.desktop"
    entry = read_desktop(installed)
    assert shlex.split(entry["Exec"]) == [str(exe), "%F"]
    assert entry["TryExec"] == str(exe)
    assert entry["Icon"] == "videoreview"
    mime = entry["MimeType"].split(";")
    assert "video/mp4" in mime and "video/x-matroska" in mime
    validate(installed)
    for n in SIZES:
        png = data / f"icons/hicolor/{n}x{n}/apps/videoreview.png"
        assert png_size(png) == (n, n)
    svg = data / "icons/hicolor/scalable/apps/videoreview.svg"
    assert svg.read_bytes() == (ICONS / "videoreview.svg").read_bytes()
    # "Open with" only: no default application is set anywhere
    assert not [p for p in tmp_path.rglob("mimeapps.list")]

    done = run_install(env, "--uninstall")
    assert done.returncode == 0, done.stderr
    assert files_under(data) == unrelated


def test_missing_executable_installs_nothing(tmp_path, env):
    missing = tmp_path / "nowhere" / "videoreview"
    done = run_install(env, "--exec", str(missing))
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(missing) in lines[0], done.stderr
    assert not (tmp_path / "data").exists()


def test_not_executable_is_refused(tmp_path, env):
    plain = tmp_path / "videoreview"
    plain.write_text("not a program\n")
    plain.chmod(0o644)
    done = run_install(env, "--exec", str(plain))
    assert done.returncode != 0 and str(plain) in done.stderr
    assert not (tmp_path / "data").exists()


def test_help(env):
    done = run_install(env, "--help")
    assert done.returncode == 0 and "--uninstall" in done.stdout and "--exec" in done.stdout


def test_icons_are_drawn():
    from PySide6.QtGui import QImage

    img = QImage(str(ICONS / "hicolor/48x48/apps/videoreview.png"))
    assert (img.width(), img.height()) == (48, 48)
    colours = {img.pixel(x, y) for x in range(48) for y in range(48)}
    assert len(colours) > 2
    assert img.pixelColor(0, 0).alpha() == 0
    for n in SIZES:
        assert png_size(ICONS / f"hicolor/{n}x{n}/apps/videoreview.png") == (n, n)
    ico = (ICONS / "videoreview.ico").read_bytes()
    assert ico[:4] == b"\0\0\1\0" and struct.unpack("<H", ico[4:6])[0] >= 5
    icns = (ICONS / "videoreview.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
