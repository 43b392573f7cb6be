"""The library panel end to end in the real window (offscreen): a folder of two generated
clips added through the panel, analysed and indexed by the real library process, then a
plain query and the first result opened at its moment.

    .venv/bin/python benchmarks/bench_library_panel.py [--shots DIR]

Prints the time from the add to both videos indexed (analysis and the text embedding's
first load included), the top result of "scenes with no people", and where the player
lands after opening it. With --shots, saves the window at each step as PNGs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=Path, help="save screenshots here")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    with tempfile.TemporaryDirectory(prefix="bench-library-panel-") as tmp:
        os.environ["VIDEOREVIEW_HOME"] = str(Path(tmp) / "home")  # the library process inherits it
        from test_library_cli import make_library_folder

        (Path(tmp) / "videos").mkdir()
        folder = make_library_folder(Path(tmp) / "videos")
        run(folder, args.shots)


def run(folder: Path, shots: Path | None) -> None:
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    from videoreview.gui.main_window import MainWindow

    app = QApplication([])
    window = MainWindow()
    window.resize(1500, 950)
    window.show()

    def until(condition, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while not condition() and time.monotonic() < end:
            app.processEvents(QEventLoop.AllEvents, 50)
            time.sleep(0.02)
        return condition()

    def shot(name: str) -> None:
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            window.grab().save(str(shots / f"{name}.png"))

    panel = window.library_panel
    until(lambda: False, 1)
    start = time.monotonic()
    panel.add_paths([str(folder)])
    until(lambda: len(window.queue.jobs()) > 0, 30)
    shot("indexing")
    videos, search = panel.video_list, panel.search_page
    done = until(lambda: window.queue.is_idle() and not window.library.busy() and len(videos.videos) == 2
                 and {v.status for v in videos.videos} == {"done"}, 600)
    print(f"indexed    {len(videos.videos)} videos in {time.monotonic() - start:.1f} s after the add"
          f"{'' if done else ' (NOT finished: timed out)'}")
    search.query.setText("scenes with no people")
    search.search()
    until(lambda: search.moments, 60)
    shot("results")
    if not search.moments:
        print("search     no results")
    else:
        best = search.moments[0]
        count = len({m.video_id for m in search.moments})
        print(f"search     {len(search.moments)} moments in {count} videos; first: {Path(best.path).name} at "
              f"{best.start:.2f} s")
        search.go_to(0)
        until(lambda: window._opened_in_player == best.path and abs(window.player.current_time() - best.start) < 0.05,
              120)
        print(f"open       {Path(window.current.path).name}, player at {window.player.current_time():.2f} s "
              f"(the moment starts at {best.start:.2f} s)")
        shot("opened")
    window.close()


if __name__ == "__main__":
    main()
