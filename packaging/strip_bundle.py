"""Strip the symbol tables off the bundle's ELF files (Linux), keeping each file whose
stripped copy would not load.

PyInstaller's own ``strip=True`` strips everything and breaks libraries that auditwheel
patched with patchelf (numpy's OpenBLAS, for one: "ELF load command address/offset not
page-aligned"): strip rewrites the file and a PT_LOAD segment's file offset stops being
congruent to its address modulo the alignment, which the dynamic loader refuses. Here
every stripped copy is checked for exactly that before it replaces the original.

    python packaging/strip_bundle.py dist/videoreview
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

PT_LOAD = 1


def is_elf(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(4) == b"\x7fELF"


def loadable(path: Path) -> bool:
    """Whether every PT_LOAD segment of a 64-bit little-endian ELF file has
    p_offset = p_vaddr (mod p_align), as ld.so requires (other files: not judged, True)."""
    with open(path, "rb") as handle:
        header = handle.read(64)
        if header[4] != 2 or header[5] != 1:  # ELFCLASS64, ELFDATA2LSB
            return True
        phoff, = struct.unpack_from("<Q", header, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", header, 0x36)
        handle.seek(phoff)
        table = handle.read(phentsize * phnum)
    for k in range(phnum):
        p_type, _flags, p_offset, p_vaddr, _paddr, _filesz, _memsz, p_align = struct.unpack_from(
            "<IIQQQQQQ", table, k * phentsize)
        if p_type == PT_LOAD and p_align > 1 and (p_offset - p_vaddr) % p_align:
            return False
    return True


def strip_tree(root: Path) -> tuple[int, int, list[str]]:
    """Strip what can be stripped under ``root``: (bytes before, bytes after, files kept as they were)."""
    before = after = 0
    kept: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stripped"
        for path in sorted(root.rglob("*")):
            if path.is_symlink() or not path.is_file() or not is_elf(path):
                continue
            size = path.stat().st_size
            before += size
            result = subprocess.run(["strip", "--strip-unneeded", "-o", str(out), str(path)], capture_output=True)
            if result.returncode != 0 or not loadable(out):
                kept.append(str(path.relative_to(root)))
                after += size
                continue
            if out.stat().st_size < size:
                mode = path.stat().st_mode
                shutil.move(out, path)
                os.chmod(path, mode)
            after += path.stat().st_size
    return before, after, kept


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: strip_bundle.py BUNDLE_FOLDER", file=sys.stderr)
        return 2
    if shutil.which("strip") is None:
        print("strip_bundle: strip(1) not found (apt install binutils); the bundle is left unstripped", file=sys.stderr)
        return 0
    before, after, kept = strip_tree(Path(sys.argv[1]))
    print(f"strip: {before / 2**20:.0f} MB of ELF files -> {after / 2**20:.0f} MB; "
          f"{len(kept)} left as they were (stripping would break them): {', '.join(kept) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
