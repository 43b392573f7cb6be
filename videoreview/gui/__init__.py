"""The desktop window: the only package that imports Qt (PySide6)."""
