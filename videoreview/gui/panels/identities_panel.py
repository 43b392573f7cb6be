"""The Identities panel: a gallery of the people found, each a face crop framed in the
identity's colour, with its label."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from ...records import Analysis
from ..colors import identity_color
from ..labels import identity_label


class IdentitiesPanel(QListWidget):
    """A gallery of the identities: face crop, id and name. Picking one selects it."""

    picked = Signal(str)
    CROP = 96

    def __init__(self) -> None:
        super().__init__()
        self.setViewMode(QListWidget.IconMode)
        self.setIconSize(QSize(self.CROP, self.CROP))
        self.setResizeMode(QListWidget.Adjust)
        self.setMovement(QListWidget.Static)
        self.setSpacing(6)
        self.setWordWrap(True)
        self.crops: dict[str, QImage] = {}  # identity id -> face crop
        self.itemClicked.connect(lambda item: self.picked.emit(item.data(Qt.UserRole)))

    def set_analysis(self, analysis: Analysis | None) -> list[tuple[str, int, tuple]]:
        """Show the identities; returns the crops it still needs: (id, frame, box)."""
        self.clear()
        wanted = []
        for identity in analysis.identities if analysis else ():
            item = QListWidgetItem(self._icon(identity.id), identity_label(identity.id, identity.name)
                                   + (" ✎" if identity.edited else ""))
            item.setData(Qt.UserRole, identity.id)
            seen = sum(a.end - a.start for a in identity.appearances)
            item.setToolTip(f"{identity_label(identity.id, identity.name)}: on screen {seen:.1f} s")
            self.addItem(item)
            if identity.exemplar is not None:
                wanted.append((self._crop_key(identity), identity.exemplar.frame, identity.exemplar.box))
        return wanted

    @staticmethod
    def _crop_key(identity) -> str:
        face = identity.exemplar
        return f"{identity.id}|{face.frame}|{','.join(f'{v:.0f}' for v in face.box)}"

    def set_crop(self, key: str, image: QImage) -> None:
        pid = key.split("|", 1)[0]
        self.crops[key] = image
        for row in range(self.count()):
            item = self.item(row)
            if item.data(Qt.UserRole) == pid:
                item.setIcon(self._icon(pid, image))

    def _icon(self, pid: str, image: QImage | None = None) -> QIcon:
        """The face crop framed in the identity's colour (a coloured square until it loads)."""
        if image is None:
            image = next((img for key, img in self.crops.items() if key.startswith(pid + "|")), None)
        size = self.CROP
        pixmap = QPixmap(size, size)
        pixmap.fill(QColor(0, 0, 0, 0))
        painter = QPainter(pixmap)
        colour = identity_color(pid)
        if image is not None:
            painter.drawImage(pixmap.rect().adjusted(3, 3, -3, -3), image)
        else:
            painter.fillRect(pixmap.rect().adjusted(3, 3, -3, -3), colour.darker(250))
            painter.setPen(Qt.white)
            painter.drawText(pixmap.rect(), Qt.AlignCenter, pid)
        pen = painter.pen()
        pen.setColor(colour)
        pen.setWidth(4)
        painter.setPen(pen)
        painter.drawRect(pixmap.rect().adjusted(2, 2, -2, -2))
        painter.end()
        return QIcon(pixmap)
