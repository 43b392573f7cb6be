"""The team library on a real PostgreSQL with pgvector (started by the session's
postgres_server fixture, scripts/postgres's code): the script itself, connecting safely,
the schema's version, concurrent adds of one path, and two reviewers' homes sharing one
library through the command line, each finding the other's videos and notes. The search
behaviour both backends share is tested on both in test_library_catalog.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from faces import SCENE, make_face_video
from fake_engines import WITH_PEOPLE
from helpers import fake_home, kitchen, run
from videoreview.errors import LibraryError
from videoreview.library.search import Searcher
from videoreview.library.team import server
from videoreview.library.team.catalog import SCHEMA_VERSION, TeamCatalog
from videoreview.library.team.url import connection_options, display
from videos import make_cuts_video

ROOT = Path(__file__).resolve().parents[1]


def test_scripts_postgres_starts_a_server_on_loopback_and_stops_it_by_its_pid(tmp_path):
    import tempfile

    folder = tempfile.mkdtemp(prefix="videoreview-pg-script-")
    try:
        started = subprocess.run([str(ROOT / "scripts" / "postgres"), "start", folder], capture_output=True,
                                 text=True, timeout=120)
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip()
        assert url.startswith("postgresql://videoreview@127.0.0.1:") and url.endswith("/videoreview")
        pid = server.pid(folder)
        assert pid is not None
        with TeamCatalog(url) as catalog:
            assert catalog.videos() == []
        again = subprocess.run([str(ROOT / "scripts" / "postgres"), "start", folder], capture_output=True,
                               text=True, timeout=60)
        assert again.stdout.strip() == url and server.pid(folder) == pid  # the running one, left as it is
        stopped = subprocess.run([str(ROOT / "scripts" / "postgres"), "stop", folder], capture_output=True,
                                 text=True, timeout=60)
        assert stopped.returncode == 0 and server.pid(folder) is None
        with pytest.raises(OSError):
            os.kill(pid, 0)
        with pytest.raises(LibraryError, match="cannot be reached"):
            TeamCatalog(url)
    finally:
        server.stop(folder)


def test_urls_keep_secrets_out_and_other_machines_encrypted():
    with pytest.raises(LibraryError, match="holds a password"):
        connection_options("postgresql://ada:secret@db.example.org/videos")
    assert display("postgresql://ada:secret@db.example.org/videos") == "postgresql://ada:***@db.example.org/videos"
    assert connection_options("postgresql://ada@db.example.org/videos")["sslmode"] == "require"
    assert connection_options("postgresql://ada@db.example.org/videos?sslmode=verify-full")["sslmode"] == "verify-full"
    for weak in ("allow", "prefer"):
        with pytest.raises(LibraryError, match="unencrypted"):
            connection_options(f"postgresql://ada@db.example.org/videos?sslmode={weak}")
    assert connection_options("postgresql://ada@db.example.org/videos?sslmode=disable")["sslmode"] == "disable"
    assert "sslmode" not in connection_options("postgresql://ada@127.0.0.1:5432/videos")  # loopback: as given
    with pytest.raises(LibraryError, match="not a PostgreSQL URL"):
        connection_options("postgresql://ada@db.example.org/videos?nosuchoption=1")


def test_a_password_comes_from_the_environment_or_the_keyring_never_the_url(monkeypatch):
    """`library password URL` keeps it in the system keyring (here an in-memory backend of
    the keyring package's own interface); PGPASSWORD, where set, is libpq's to use."""
    import io

    import keyring
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1

        def __init__(self):
            super().__init__()
            self.kept = {}

        def get_password(self, service, username):
            return self.kept.get((service, username))

        def set_password(self, service, username, password):
            self.kept[(service, username)] = password

        def delete_password(self, service, username):
            self.kept.pop((service, username))

    url = "postgresql://ada@db.example.org/videos"
    monkeypatch.delenv("PGPASSWORD", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(Memory())
    try:
        assert "password" not in connection_options(url)
        monkeypatch.setattr("sys.stdin", io.StringIO("s3cret\n"))
        stored = run("library", "password", url)
        assert stored.returncode == 0 and "kept in the system keyring" in stored.stdout
        assert "s3cret" not in stored.stdout + stored.stderr
        assert connection_options(url)["password"] == "s3cret"
        monkeypatch.setenv("PGPASSWORD", "from-the-environment")
        assert "password" not in connection_options(url)  # libpq reads PGPASSWORD itself
    finally:
        keyring.set_keyring(previous)


def test_the_schema_is_versioned_and_a_newer_one_refused_unchanged(team_url):
    with TeamCatalog(team_url) as catalog:
        assert catalog.query("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
        catalog.query("UPDATE schema_version SET version = 99")
    with pytest.raises(LibraryError, match="newer videoreview"):
        TeamCatalog(team_url)
    import psycopg

    with psycopg.connect(team_url) as db:
        assert db.execute("SELECT version FROM schema_version").fetchone() == (99,)


def test_an_older_schema_is_migrated_with_its_units_still_found(team_url, tmp_path):
    """A library made at schema 2 (the words inside the units' rows) opens at the newest,
    its units found by text as before."""
    import psycopg

    from videoreview.library.team.schema import MIGRATIONS

    with psycopg.connect(team_url, autocommit=True) as db:
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")
        for script in MIGRATIONS[:2]:
            db.execute(script)
        db.execute("CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (2)")
        db.execute("INSERT INTO videos (id, path, status, added_at) VALUES (1, '/v/old.mp4', 'done', 0)")
        db.execute("INSERT INTO units (video_id, kind, start, \"end\", text) VALUES (1, 'caption', 0, 1, "
                   "'A heron stands in the reeds')")
    with TeamCatalog(team_url) as catalog:
        assert catalog.query("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
        assert [m.text for m in Searcher(catalog).search("herons")] == ["A heron stands in the reeds"]


def test_two_machines_adding_one_path_at_once_get_one_row(team_url, tmp_path):
    video = tmp_path / "shared.mp4"
    video.write_bytes(b"x")

    def add(_):
        with TeamCatalog(team_url) as catalog:
            return catalog.add_video(video, "h" * 64)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(add, range(8)))
    assert len({video_id for video_id, _ in results}) == 1
    assert sorted(what for _, what in results) == ["added"] + ["known"] * 7


def test_the_analysis_is_kept_whole_for_every_member(team_url, tmp_path):
    path = tmp_path / "kitchen.mp4"
    path.write_bytes(b"kitchen")
    analysis = kitchen(str(path))
    with TeamCatalog(team_url) as catalog:
        video_id, _ = catalog.add_video(path, analysis.content_hash)
        catalog.index_analysis(video_id, analysis)
    with TeamCatalog(team_url) as other:  # another machine's connection
        assert other.analysis(video_id) == analysis


def add_process(video: Path, home: Path, url: str) -> subprocess.Popen:
    env = dict(os.environ, VIDEOREVIEW_HOME=str(home))
    return subprocess.Popen([sys.executable, "-m", "videoreview", "library", "add", str(video), "--library", url,
                             "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_homes_share_one_team_library(team_url, tmp_path):
    """Two reviewers (two homes) add different videos at the same time into one team
    library; each finds the other's video by text, and a note one writes is listed by the
    other's ``library notes`` with its author."""
    (tmp_path / "videos").mkdir()
    cuts = make_cuts_video(tmp_path / "videos", name="cuts clip.mp4").path
    faces = tmp_path / "videos" / "people.mp4"
    make_face_video(faces, SCENE)
    ada, grace = fake_home(tmp_path / "ada", WITH_PEOPLE), fake_home(tmp_path / "grace", WITH_PEOPLE)
    adding = [add_process(cuts, ada, team_url), add_process(faces, grace, team_url)]
    for proc in adding:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert out.strip() == "1 indexed, 0 unchanged, 0 failed"

    listed = run("library", "list", "--json", "--library", team_url, home=ada)
    assert listed.returncode == 0, listed.stderr
    assert sorted(Path(v["path"]).name for v in json.loads(listed.stdout)) == ["cuts clip.mp4",
                                                                                          "people.mp4"]
    found = run("library", "search", "people", "--json", "--library", team_url, home=ada)  # Grace's video
    assert found.returncode == 0, found.stderr
    assert any(Path(m["path"]).name == "people.mp4" for m in json.loads(found.stdout))

    noted = run("notes", str(cuts), "--add", "1.0", "The logo is cut off", "--author", "Ada", "--library", team_url,
                home=ada)
    assert noted.returncode == 0, noted.stderr
    notes = run("library", "notes", "--json", "--library", team_url, home=grace)
    assert notes.returncode == 0, notes.stderr
    assert [(Path(n["path"]).name, n["text"], n["author"]) for n in json.loads(notes.stdout)] == [
        ("cuts clip.mp4", "The logo is cut off", "Ada")]
    # Grace opens Ada's video's analysis from the library and adds her own note to it.
    again = run("notes", str(cuts), "--add", "2.0", "And the fade", "--author", "Grace", "--library", team_url,
                home=grace)
    assert again.returncode == 0, again.stderr
    notes = run("library", "notes", "--json", "--library", team_url, home=ada)
    assert sorted((n["text"], n["author"]) for n in json.loads(notes.stdout)) == [
        ("And the fade", "Grace"), ("The logo is cut off", "Ada")]
    where = run("library", "location", "--library", team_url, home=ada)
    assert where.stdout.strip() == f"{team_url} (a team library on PostgreSQL)"


def test_export_and_import_move_a_library_both_ways_with_nothing_lost(team_url, tmp_path):
    from helpers import garden
    from videoreview.library.catalog import Catalog
    from videoreview.notes import changes

    analyses = {}
    for name, make in (("kitchen.mp4", kitchen), ("garden.mp4", garden)):
        path = tmp_path / "videos" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(name.encode())
        analysis = make(str(path))
        note = changes.new_note(analysis, 50, f"A note on {name}", tag="red", author="Ada")
        analyses[str(path)] = changes.add_note(analysis, note)
    ada, grace = tmp_path / "ada", tmp_path / "grace"
    ada.mkdir()
    with Catalog(ada / "library.sqlite3") as local:  # Ada's local library, as the window leaves it
        for path, analysis in analyses.items():
            video_id, _ = local.add_video(path, analysis.content_hash)
            local.keep_analysis(analysis)
            local.index_analysis(video_id, analysis)

    exported = run("library", "export", team_url, home=ada)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip() == f"2 videos (2 analysed, 2 notes) exported to {team_url}"
    with TeamCatalog(team_url) as team:
        assert {v.path: team.analysis(v.id) for v in team.videos()} == analyses

    imported = run("library", "import", team_url, home=grace)  # and back into another local library
    assert imported.returncode == 0, imported.stderr
    with Catalog(grace / "library.sqlite3") as local:
        assert {v.path: local.analysis(v.id) for v in local.videos()} == analyses
        assert all(v.status == "done" for v in local.videos())
    found = run("library", "notes", "--json", home=grace)
    assert sorted((Path(n["path"]).name, n["author"]) for n in json.loads(found.stdout)) == [
        ("garden.mp4", "Ada"), ("kitchen.mp4", "Ada")]


def test_a_cluster_worker_indexes_into_the_team_library_itself(team_url, cuts_video, fresh_home):
    """With a team library the actor (called here as the cluster calls it) indexes the
    Analysis into the server and sends back only that it did."""
    from fake_engines import ENGINES
    from videoreview.cluster.worker import Analyser
    from videoreview.pipeline import StageCache

    path = str(cuts_video.path)
    digest = StageCache().content_hash(path)
    with TeamCatalog(team_url) as catalog:
        video_id, _ = catalog.add_video(path, digest)
    done = Analyser(ENGINES, [], library=team_url).analyse(path, digest, None, video_id)
    assert done.get("indexed") is True and "analysis" not in done, done
    with TeamCatalog(team_url) as catalog:
        assert catalog.video(video_id).status == "done" and catalog.analysis(video_id).content_hash == digest
        assert catalog.units(video_id) and catalog.embedding_count() > 0
    broken = Analyser(ENGINES, [], library=team_url.rsplit("/", 1)[0] + "/no_such_database")
    problem = broken.analyse(path, digest, None, video_id)["problem"]
    assert "analysed on" in problem and "not indexed" in problem and "no_such_database" in problem


def test_notes_written_at_once_are_all_kept_and_heard_by_others(team_url, tmp_path):
    """Two reviewers add notes to one video from stale copies of its analysis: both notes
    stay; two edits of one note keep the later and the history keeps both; a note one
    deletes is not brought back by another's older copy; a member listening hears of each
    write at its commit."""
    import time

    from videoreview.library.team.changes import Changes
    from videoreview.notes import changes

    path = tmp_path / "kitchen.mp4"
    path.write_bytes(b"kitchen")
    base = kitchen(str(path))
    with TeamCatalog(team_url) as catalog, Changes(team_url) as listening:
        video_id, _ = catalog.add_video(path, base.content_hash)
        catalog.index_analysis(video_id, base)
        assert [c.video for c in listening.wait(2.0)] == [video_id]
        ada = changes.add_note(base, changes.new_note(base, 25, "Ada's note", author="Ada"))
        grace = changes.add_note(base, changes.new_note(base, 50, "Grace's note", author="Grace"))  # stale copy
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda a: TeamCatalog(team_url).index_analysis(video_id, a), (ada, grace)))
        heard, waited = [], time.monotonic()
        while len(heard) < 2 and time.monotonic() - waited < 2.0:
            heard += listening.wait(2.0)
        assert len(heard) == 2 and time.monotonic() - waited < 2.0
        assert sorted(n.text for n in catalog.analysis(video_id).notes) == ["Ada's note", "Grace's note"]

        shared = catalog.analysis(video_id)
        note = next(n for n in shared.notes if n.author == "Ada")
        first = changes.change_note(shared, note.id, text="Ada's note, first edit")
        time.sleep(0.01)  # (changed is a timestamp)
        later = changes.change_note(shared, note.id, text="Ada's note, later edit")
        catalog.index_analysis(video_id, later)
        catalog.index_analysis(video_id, first)  # arrives last but was changed first
        kept = next(n for n in catalog.analysis(video_id).notes if n.id == note.id)
        assert kept.text == "Ada's note, later edit"
        assert [v["text"] for v in catalog.note_history(video_id, note.id)] == [
            "Ada's note", "Ada's note, first edit", "Ada's note, later edit"]

        # Ada deletes her note; Grace's copy, read before that, still has it: it stays deleted
        graces_copy = catalog.analysis(video_id)
        catalog.index_analysis(video_id, changes.delete_note(catalog.analysis(video_id), note.id, author="Ada"))
        graces = next(n for n in graces_copy.notes if n.author == "Grace")
        catalog.index_analysis(video_id, changes.change_note(graces_copy, graces.id, status="resolved"))
        assert [(n.text, n.status) for n in catalog.analysis(video_id).notes] == [("Grace's note", "resolved")]
        deletion = catalog.note_history(video_id, note.id)[-1]  # the history ends with who deleted it, and when
        assert (deletion["id"], deletion["author"]) == (note.id, "Ada") and deletion["deleted"] > kept.changed


ODD = ["", " ", "'", "''", '"', "\\", "%", "_", "%_%", "?", "$1", ":name", "%s", "%(x)s", "; DROP TABLE videos; --",
       "' OR 1=1 --", "\x00", "a\x00b", "\u202e", "日本語", "🎬", "é" * 300, "x" * 5000, "NULL", "\n\r\t", "&|!<->()",
       "to_tsquery('x')", "E'\\\\x41'", "$$", "/* */", "\ufeff", "\udcff".encode("utf-8", "surrogatepass").decode(
           "utf-8", "replace")]


def test_odd_search_strings_and_note_texts_reach_the_server_as_data(team_url, tmp_path):
    """Every query is parameterised: odd strings (quotes, placeholders, SQL, NUL, tsquery
    operators, long and non-Latin text) are searched for and kept as notes, as text."""
    import random

    from helpers import Words
    from videoreview.errors import VideoReviewError
    from videoreview.library.search import Searcher
    from videoreview.notes import changes

    path = tmp_path / "kitchen.mp4"
    path.write_bytes(b"kitchen")
    analysis = kitchen(str(path))
    rng = random.Random(46)
    texts = ODD + ["".join(rng.choice(ODD[:20] + ["a", " ", "onions"]) for _ in range(rng.randint(1, 12)))
                   for _ in range(40)]
    texts = [t for t in texts if t.strip()]  # (a note needs some text)
    for n, text in enumerate(texts):
        analysis = changes.add_note(analysis, changes.new_note(analysis, n, text, author=text[:40]))
    with TeamCatalog(team_url) as catalog:
        video_id, _ = catalog.add_video(path, analysis.content_hash)
        catalog.index_analysis(video_id, analysis, Words().embed)
        kept = catalog.analysis(video_id)
        assert len(kept.notes) == len(texts)
        assert "a\ufffdb" in {n.text for n in kept.notes}  # PostgreSQL holds no U+0000: kept as U+FFFD
        searcher = Searcher(catalog, Words())
        for query in texts:
            try:
                searcher.search(query)
            except VideoReviewError as exc:  # a query with no words: said as such
                assert "query" in str(exc)
        assert catalog.query("SELECT count(*) FROM videos") == [(1,)]  # nothing dropped, nothing run
        assert searcher.search("onions")


KILLED_WRITER = """
import sys, time
sys.path.insert(0, {tests!r})
from helpers import kitchen
from videoreview.library.team.catalog import TeamCatalog
from videoreview.records import FrameCaption
from dataclasses import replace
analysis = kitchen({path!r})
many = tuple(FrameCaption(t * 0.001, t, f"caption number {{t}} of many") for t in range(20000))
big = replace(analysis, captions=many)
with TeamCatalog({url!r}) as catalog:
    print("writing", flush=True)
    while True:
        catalog.index_analysis({video_id}, big)
"""


def test_a_writer_killed_mid_transaction_loses_nothing(team_url, tmp_path):
    """``kill -9`` of a process in the middle of writing a 20,000-unit analysis leaves the
    video as it was before that write (or after a whole one): units, notes and the kept
    Analysis agree."""
    import signal
    import time

    from videoreview.library.units import units_of
    from videoreview.notes import changes

    path = tmp_path / "kitchen.mp4"
    path.write_bytes(b"kitchen")
    before = kitchen(str(path))
    before = changes.add_note(before, changes.new_note(before, 25, "Kept through the kill", author="Ada"))
    with TeamCatalog(team_url) as catalog:
        video_id, _ = catalog.add_video(path, before.content_hash)
        catalog.index_analysis(video_id, before)
    script = KILLED_WRITER.format(tests=str(Path(__file__).parent), path=str(path), url=team_url, video_id=video_id)
    writer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "writing"
    with TeamCatalog(team_url) as catalog:  # killed as soon as its server process is inside a transaction
        deadline = time.monotonic() + 60
        while not catalog.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
                                "pid != pg_backend_pid() AND xact_start IS NOT NULL AND query LIKE 'INSERT%'")[0][0]:
            assert time.monotonic() < deadline, "the writer never got inside a transaction"
            time.sleep(0.005)
        os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    with TeamCatalog(team_url) as catalog:
        kept = catalog.analysis(video_id)
        count = catalog.query("SELECT count(*) FROM units WHERE video_id = ?", (video_id,))[0][0]
        assert count == len(units_of(kept))  # the units are those of the Analysis kept, all of them
        assert [n.text for n in kept.notes] == ["Kept through the kill"]
        assert catalog.video(video_id).status == "done"


def roles_sql(names: dict[str, str]) -> str:
    """docs/library.md's SQL for roles (its indented block after "this SQL makes"), with
    each role named as ``names`` says (roles are the server's, shared by the tests)."""
    import re

    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8").split("this SQL makes", 1)[1]
    block = re.search(r"\n\n((?: {6}.*\n|\n)+?)\n(?! {6})", text).group(1)
    return re.sub(r"\b(reviewer|editor|ada|grace)\b", lambda m: names[m.group(1)], block)


def test_roles_from_the_docs_and_a_refused_action_in_one_line(team_url, tmp_path):
    """docs/library.md's roles: a reviewer adds notes to what is there but adds no video,
    and changes or deletes only the notes they wrote, and is told so in one line; an
    editor adds videos and resolves anyone's note."""
    import uuid

    import psycopg

    from videoreview.notes import changes

    names = {k: f"{k}_{uuid.uuid4().hex[:6]}" for k in ("reviewer", "editor", "ada", "grace")}
    path = tmp_path / "kitchen.mp4"
    path.write_bytes(b"kitchen")
    analysis = kitchen(str(path))
    owners = changes.new_note(analysis, 10, "From the owner", author="videoreview")
    analysis = changes.add_note(analysis, owners)
    with TeamCatalog(team_url) as catalog:  # made by its owner
        video_id, _ = catalog.add_video(path, analysis.content_hash)
        catalog.index_analysis(video_id, analysis)
    with psycopg.connect(team_url, autocommit=True) as db:
        db.execute(roles_sql(names))
    as_role = {name: team_url.replace("videoreview@", f"{names[name]}@") for name in ("ada", "grace")}
    try:
        with TeamCatalog(as_role["ada"]) as ada:
            noted = changes.add_note(analysis, changes.new_note(analysis, 25, "From a reviewer",
                                                                author=names["ada"].upper()))
            ada.index_analysis(video_id, noted)
            assert [n.text for n in ada.analysis(video_id).notes] == ["From the owner", "From a reviewer"]
            own = next(n for n in noted.notes if n.text == "From a reviewer")
            ada.index_analysis(video_id, changes.change_note(noted, own.id, status="resolved"))
            for others in (changes.change_note(noted, owners.id, status="resolved"),
                           changes.delete_note(noted, owners.id)):
                with pytest.raises(LibraryError) as refused:
                    ada.index_analysis(video_id, others)
                assert "refused: your role may not do this (permission denied: only its author" in str(refused.value)
            assert [n.status for n in ada.analysis(video_id).notes] == ["open", "resolved"]  # nothing changed
            other = tmp_path / "garden.mp4"
            other.write_bytes(b"garden")
            with pytest.raises(LibraryError) as refused:
                ada.add_video(other)
        assert "refused: your role may not do this" in str(refused.value) and "\n" not in str(refused.value)
        added = run("library", "add", str(other), "--library", as_role["ada"], "-q")
        assert added.returncode != 0 and "refused: your role may not do this" in added.stderr
        with TeamCatalog(as_role["grace"]) as grace:
            assert grace.add_video(other)[1] == "added"
            stored = grace.analysis(video_id)
            grace.index_analysis(video_id, changes.change_note(stored, owners.id, status="resolved"))
            assert [n.status for n in grace.analysis(video_id).notes] == ["resolved", "resolved"]
    finally:
        with psycopg.connect(team_url, autocommit=True) as db:
            db.execute("DROP OWNED BY " + ", ".join(names.values()))
            for name in ("ada", "grace", "editor", "reviewer"):
                db.execute(f"DROP ROLE {names[name]}")


def test_a_video_being_analysed_by_one_machine_is_not_started_by_another(team_url, cuts_video, tmp_path):
    """A claim is a session lock: another process's add leaves the video alone while it is
    held, and takes it once the holder lets go (or dies, its connection with it)."""
    home = fake_home(tmp_path / "home")
    with TeamCatalog(team_url) as first:
        video_id, _ = first.add_video(cuts_video.path)
        assert first.claim(video_id)
        with TeamCatalog(team_url) as second:
            assert not second.claim(video_id)
        added = run("library", "add", str(cuts_video.path), "--library", team_url, "-q", home=home)
        assert added.returncode == 0, added.stderr
        assert added.stdout.strip() == "0 indexed, 0 unchanged, 0 failed, 1 being analysed elsewhere"
    # the holder closed (as a process that dies): the next add analyses it
    added = run("library", "add", str(cuts_video.path), "--library", team_url, "-q", home=home)
    assert added.stdout.strip() == "1 indexed, 0 unchanged, 0 failed", added.stderr


def test_writers_whose_first_vectors_arrive_together_do_not_deadlock(team_url, tmp_path):
    """The vector index is made once its dimension is known: eight writers indexing their
    first videos at once all get through (it had deadlocked)."""
    from helpers import Words

    def index(n: int) -> int:
        path = tmp_path / f"video{n}.mp4"
        path.write_bytes(str(n).encode())
        analysis = kitchen(str(path))
        with TeamCatalog(team_url) as catalog:
            video_id, _ = catalog.add_video(path, f"{n:064x}")
            return catalog.index_analysis(video_id, analysis, Words().embed)

    with ThreadPoolExecutor(8) as pool:
        assert all(list(pool.map(index, range(8))))
    with TeamCatalog(team_url) as catalog:
        assert catalog.get_meta("embedding_dim") == str(Words.dim)
        assert catalog.query("SELECT count(*) FROM pg_indexes WHERE indexname = 'units_embedding'") == [(1,)]
