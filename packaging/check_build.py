"""The bundle's end-to-end check (run by packaging/check-build): the bundle's executable,
offline, on a clip made on the spot. One line per step; on the first failure, one line
saying what is missing and exit status 1.

Steps: videoreview --version; videoreview models list (the builtin engines' files are
in the bundle); the window with no video (gui --screenshot: the un-analysed window,
which must not show the timeline's marks); the window on the clip (gui CLIP --screenshot
--at 1: analysed in the window's spawned child process, then the timeline must show cut
markers, caption blocks and keyframes); videoreview analyze CLIP (both cuts found);
the tar.gz lists the executable and the desktop files.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))
sys.path.insert(0, str(ROOT / "tests"))

import bundle_files  # noqa: E402

# The timeline's own colours (videoreview/gui/colors.py), drawn whatever the theme.
MARKS = {
    "cut markers": (0xE8, 0x45, 0x3C),  # BOUNDARY_COLORS["cut"]: a 3 px bar per cut
    "caption blocks": (0x7B, 0x87, 0x94),  # CAPTION_COLOR: the 1 px separator between caption blocks
    "keyframes": (0x5C, 0xC9, 0x8A),  # KEYFRAME_COLOR: diamonds and the frame round each keyframe's thumbnail
}
TOLERANCE = 3  # per channel
MIN_RUN = 12  # a mark is a vertical run of at least this many pixels (bars and separators are 20 px)
CUTS = (2.0, 4.4)  # the clip's cuts (frames 50 and 110 at 25 fps)


class Failed(Exception):
    pass


def longest_vertical_runs(mask: np.ndarray) -> np.ndarray:
    """For each column, the longest run of True."""
    best = np.zeros(mask.shape[1], np.int32)
    run = np.zeros(mask.shape[1], np.int32)
    for row in mask:
        run = np.where(row, run + 1, 0)
        np.maximum(best, run, out=best)
    return best


def marks_found(png: Path) -> dict[str, int]:
    """For each mark, how many pixel columns of the lower 60 % of the screenshot (below
    the video: the timeline and the docks) hold a vertical run of its colour."""
    import cv2

    image = cv2.imread(str(png), cv2.IMREAD_COLOR)
    if image is None:
        raise Failed(f"{png}: not a readable PNG")
    rgb = image[int(image.shape[0] * 0.4):, :, ::-1].astype(np.int16)
    found = {}
    for name, colour in MARKS.items():
        mask = (np.abs(rgb - np.array(colour, np.int16)) <= TOLERANCE).all(axis=2)
        found[name] = int((longest_vertical_runs(mask) >= MIN_RUN).sum())
    return found


def isolation() -> list[str]:
    """A prefix that runs a command without a network ('unshare -n' as root, or in a user
    namespace), or [] where neither works."""
    if shutil.which("unshare"):
        for prefix in (["unshare", "-n", "--"], ["unshare", "-rn", "--"]):
            if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
                return prefix
    return []


class Checker:
    def __init__(self, exe: Path, work: Path, prefix: list[str]) -> None:
        self.exe, self.work, self.prefix = exe, work, prefix
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHON", "VIRTUAL_ENV", "QT_", "HF_", "TRANSFORMERS_", "VIDEOREVIEW_"))
               and k != "LD_LIBRARY_PATH"}
        env.update(VIDEOREVIEW_HOME=str(work / "home"), HF_HOME=str(work / "hf"), HF_HUB_OFFLINE="1",
                   TRANSFORMERS_OFFLINE="1", QT_QPA_PLATFORM="offscreen")
        self.env = env

    def run(self, step: str, *args: str, timeout: float = 300) -> str:
        start = time.monotonic()
        try:
            proc = subprocess.run([*self.prefix, str(self.exe), *args], env=self.env, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failed(f"{step}: 'videoreview {' '.join(args)}' did not finish in {timeout:.0f} s") from None
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise Failed(f"{step}: 'videoreview {' '.join(args)}' exited {proc.returncode}: {last}")
        print(f"  ok  {step} ({seconds:.1f} s)")
        return proc.stdout


def check(bundle: Path, archive: Path, work: Path) -> None:
    from videos import make_cuts_video

    exe = bundle / "videoreview"
    if not exe.is_file():
        raise Failed(f"{exe} is missing (build it: packaging/build-linux)")
    prefix = isolation()
    network = f"none ({' '.join(prefix[:2])})" if prefix else "NOT isolated (unshare is not allowed here)"
    print(f"  network: {network}")
    c = Checker(exe, work, prefix)

    text = c.run("--version", "--version")
    if "(bundle)" not in text.splitlines()[0]:
        raise Failed(f"--version: the first line does not say it is the bundle: {text.splitlines()[0]!r}")

    listing = c.run("models list", "models", "list", "--json")
    installed = {m["name"] for m in json.loads(listing) if m.get("installed")}
    missing = {"transnetv2", "efficientnet-lite0", "dlib-face", "all-minilm-l6-v2"} - installed
    if missing:
        raise Failed(f"models list: builtin models not installed in the bundle: {', '.join(sorted(missing))}")

    before = work / "before.png"
    c.run("window, no video", "gui", "--screenshot", str(before), "--size", "1600x1000")
    shown = {name: n for name, n in marks_found(before).items() if n}
    if shown:
        raise Failed(f"the un-analysed window already shows the colours this check looks for ({shown}): "
                     "the check cannot tell an analysed timeline")

    clip = make_cuts_video(work, cut_frames=(50, 110), frames=150, name="clip.mp4").path
    after = work / "after.png"
    c.run("window, clip analysed", "gui", str(clip), "--screenshot", str(after), "--at", "1", "--size", "1600x1000")
    found = marks_found(after)
    absent = [name for name, n in found.items() if n == 0]
    if absent:
        raise Failed(f"the analysed window's timeline shows no {', no '.join(absent)} "
                     f"(screenshot kept: {after}; columns found: {found})")
    print(f"  ok  timeline marks (pixel columns): {found}")

    out = work / "clip.analysis.json"
    c.run("analyze", "analyze", str(clip), "-o", str(out), "-q", "--no-cache")
    cuts = [b["time"] for b in json.loads(out.read_text())["boundaries"] if b["kind"] == "cut"]
    if len(cuts) != len(CUTS) or any(abs(a - b) > 0.1 for a, b in zip(cuts, CUTS)):
        raise Failed(f"analyze: cuts at {cuts}, expected {list(CUTS)}")
    print(f"  ok  cuts found at {cuts}")

    if not archive.is_file():
        raise Failed(f"{archive} is missing")
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    wanted = {"videoreview/videoreview", "videoreview/_internal/resources/imagenet_labels.txt",
              "videoreview/_internal/models/transnetv2.toml"}
    if (ROOT / "packaging" / "linux").is_dir():
        wanted |= {f"videoreview/{p.name}" for p in (ROOT / "packaging" / "linux").iterdir()}
    if (ROOT / "resources" / "icons").is_dir():
        wanted.add("videoreview/icons")
    if wanted - names:
        raise Failed(f"{archive.name} lacks {', '.join(sorted(wanted - names))}")
    print(f"  ok  {archive.name} ({archive.stat().st_size / 2**20:.0f} MB) holds the bundle and the desktop files")


def startup_times(bundle: Path, runs: int = 5) -> None:
    """Median wall time of ``videoreview --version`` and of the window's start (``gui
    --screenshot OUT.png`` with no video: exec to the window shown, saved as a PNG, and
    exited), each run with a fresh VIDEOREVIEW_HOME; cold runs after dropping the page
    cache (root only), warm runs after one unmeasured run."""
    import statistics

    exe = bundle / "videoreview"
    can_drop = os.geteuid() == 0 and os.access("/proc/sys/vm/drop_caches", os.W_OK)
    with tempfile.TemporaryDirectory(prefix="videoreview-startup-") as tmp:
        def once(args: list[str], cold: bool) -> float:
            home = tempfile.mkdtemp(dir=tmp)
            env = Checker(exe, Path(home), []).env
            env["VIDEOREVIEW_HOME"] = home
            if cold:
                subprocess.run(["sync"])
                Path("/proc/sys/vm/drop_caches").write_text("3\n")
            start = time.monotonic()
            proc = subprocess.run([str(exe), *args], env=env, capture_output=True)
            seconds = time.monotonic() - start
            if proc.returncode != 0:
                raise Failed(f"startup: 'videoreview {' '.join(args)}' exited {proc.returncode}")
            return seconds

        for label, args in (("--version", ["--version"]),
                            ("window (gui --screenshot, no video)", ["gui", "--screenshot", f"{tmp}/w.png"])):
            kinds = (["cold"] if can_drop else []) + ["warm"]
            figures = []
            for kind in kinds:
                if kind == "warm":
                    once(args, cold=False)
                times = [once(args, cold=kind == "cold") for _ in range(runs)]
                figures.append(f"{kind} {statistics.median(times):.2f} s (runs {', '.join(f'{t:.2f}' for t in times)})")
            print(f"  start-up, {label}: median of {runs}: " + "; ".join(figures))
        if not can_drop:
            print("  (cold figures need root: the page cache is dropped before each cold run)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="check dist/ as it is")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (screenshots, clip, home)")
    parser.add_argument("--startup", action="store_true",
                        help="also time the start-up (--version and the window; cold and warm, 5 runs each)")
    args = parser.parse_args()
    start = time.monotonic()
    if not args.no_build:
        build = subprocess.run([str(ROOT / "packaging" / "build-linux")])
        if build.returncode != 0:
            print(f"check-build: FAILED: packaging/build-linux exited {build.returncode}")
            return 1
    built = time.monotonic()
    bundle = ROOT / "dist" / "videoreview"
    archive = ROOT / "dist" / f"videoreview-{bundle_files.version()}-linux-{os.uname().machine}.tar.gz"
    work = Path(tempfile.mkdtemp(prefix="videoreview-check-"))
    try:
        check(bundle, archive, work)
        if args.startup:
            startup_times(bundle)
    except Failed as failure:
        print(f"check-build: FAILED: {failure}")
        args.keep = True
        return 1
    finally:
        if args.keep:
            print(f"  work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    end = time.monotonic()
    build_part = f"build {built - start:.0f} s, " if not args.no_build else ""
    print(f"check-build: passed ({build_part}checks {end - built:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
