"""The Qt binding itself: a regression check for a PySide6 bug that crashed the window."""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtGui import QColor, QImage, QPainter  # noqa: E402


def test_void_qt_calls_keep_references_to_none(qapp):
    """PySide6 6.12.0 on Python 3.11 dropped a reference to None on every Qt call returning
    nothing; after a few thousand paints Python aborted ("deallocating None"). The pinned
    version must not."""
    image = QImage(8, 8, QImage.Format_RGB32)
    painter = QPainter(image)
    before = sys.getrefcount(None)
    for _ in range(2000):
        painter.fillRect(0, 0, 1, 1, QColor(1, 2, 3))
    after = sys.getrefcount(None)
    painter.end()
    assert after >= before - 10, f"None lost {before - after} references in 2000 Qt calls"
