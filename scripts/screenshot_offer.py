"""The window's first-run offer of better captions, saved as a picture for the docs: a video
(by default the sample clip, made on the spot) analysed in a fresh home with the default
engines, then the offer this machine gets (its own `videoreview models device`, cores and
memory), saved once the offer bar shows it.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshot_offer.py OUT.png [--video FILE]
        [--size WxH] [--at SECONDS]

Prints the offer's text. Screenshot mode (`videoreview gui --screenshot`) saves as soon as the
analysis is shown, before the offer is made, so it cannot show it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

TIMEOUT_MS = 600_000
POLL_MS = 200


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--video", default=None, help="default: the sample clip")
    parser.add_argument("--size", default="1366x768", metavar="WxH")
    parser.add_argument("--at", type=float, default=None, metavar="SECONDS", help="where to seek (default: the middle)")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    home = Path(tempfile.mkdtemp(prefix="videoreview-offer-"))
    os.environ["VIDEOREVIEW_HOME"] = str(home)  # a first run: nothing chosen, the offer not yet answered

    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from videoreview.gui.app import application
    from videoreview.gui.main_window import MainWindow
    from videoreview.media.sample import write_sample

    app = application()
    window = MainWindow()
    window.setWindowState(Qt.WindowState.WindowNoState)
    window.resize(width, height)
    window.show()
    video = args.video or str(write_sample(home / "sample"))
    status = [1]

    def finish(message: str, code: int) -> None:
        print(message, file=sys.stderr)
        status[0] = code
        window.close()
        app.quit()

    def analysed(_path: str, analysis) -> None:
        seconds = args.at if args.at is not None else analysis.video.duration / 2
        window.player.seek(seconds)
        QTimer.singleShot(POLL_MS, wait_for_offer)

    def wait_for_offer() -> None:
        bar = window.offer_bar
        if not (bar.isVisible() and bar.label.text().startswith("Better captions")):
            QTimer.singleShot(POLL_MS, wait_for_offer)
            return
        QApplication.processEvents()
        if not window.grab().save(args.out, quality=85):  # the format by the suffix
            finish(f"videoreview: error: {args.out}: could not write the picture", 1)
            return
        finish(f"{args.out}: {bar.label.text()} [{' | '.join(bar.buttons)}]", 0)

    window.queue.finished.connect(analysed)
    window.queue.failed.connect(lambda path, message: finish(f"videoreview: error: {message}", 1))
    QTimer.singleShot(0, lambda: window.open_paths([video]))
    QTimer.singleShot(TIMEOUT_MS, lambda: finish("videoreview: error: no offer was made", 1))
    try:
        app.exec()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return status[0]


if __name__ == "__main__":
    sys.exit(main())
