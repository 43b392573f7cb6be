"""The library's catalog and search on a real SQLite file, with hand-made Analyses whose
texts the tests know: units and their spans, FTS queries that are not syntax, filters,
moved and missing files, the vector index falling out of step, and damaged, locked,
read-only and too-new catalog files."""

from __future__ import annotations

import dataclasses
import os
import sqlite3

import pytest

from helpers import Words, garden, kitchen
from videoreview.errors import LibraryError, VideoReviewError
from videoreview.library import catalog as catalog_module
from videoreview.library import vectors as vectors_module
from videoreview.library.catalog import SCHEMA_VERSION, Catalog, fts_query
from videoreview.library.search import Searcher
from videoreview.library.units import DRAWING_ONLY, file_words, units_of
from videoreview.library.vectors import VectorIndex
from videoreview.notes import changes
from videoreview.records import Shape


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name in ("kitchen.mp4", "garden.mp4"):
        paths[name] = tmp_path / "videos" / name
        paths[name].parent.mkdir(exist_ok=True)
        paths[name].write_bytes(name.encode())
    return paths


def open_catalog(backend: str, tmp_path, request):
    if backend == "sqlite":
        return Catalog(tmp_path / "library.sqlite3")
    from videoreview.library.team.catalog import TeamCatalog

    return TeamCatalog(request.getfixturevalue("team_url"))


@pytest.fixture()
def library(tmp_path, files):
    """The local catalog with the kitchen and the garden indexed."""
    yield from _indexed(Catalog(tmp_path / "library.sqlite3"), files)


@pytest.fixture(params=["sqlite", "postgres"])
def either_library(request, tmp_path, files):
    """The same on each backend: the local SQLite catalog, then the team one on PostgreSQL."""
    yield from _indexed(open_catalog(request.param, tmp_path, request), files)


def _indexed(catalog, files):
    words = Words()
    for name, make in (("kitchen.mp4", kitchen), ("garden.mp4", garden)):
        analysis = make(str(files[name]))
        video_id, what = catalog.add_video(files[name], analysis.content_hash)
        assert what == "added"
        catalog.index_analysis(video_id, analysis, words.embed)
    yield catalog, Searcher(catalog, words)
    catalog.close()


def test_units_carry_their_spans_and_the_people_on_screen():
    units = units_of(kitchen("/v/my_kitchen-2024.mp4"))
    by_text = {u.text: u for u in units}
    chop = by_text["A man chops onions on a wooden board"]
    assert (chop.kind, chop.start, chop.end, chop.people) == ("caption", 0.0, 3.0, ("P1",))
    slide = by_text["The man slides the onions into a pan"]
    assert (slide.end, slide.people) == (6.0, ("P1",))  # ends at the cut, not at the next caption; Ada is not in it
    assert by_text["cleaver (knife, edge tool, cutter, cutting implement, tool)"].kind == "labels"  # and its kinds
    event = by_text["woman: pouring tea -> drinking tea"]
    assert (event.kind, event.start, event.end, event.people) == ("boundary", 8.0, 10.0, ("P2",))
    assert by_text["Cooking, then tea time."].kind == "summary"
    assert by_text["Ada (P2)"].people == ("P2",) and by_text["my kitchen 2024"].kind == "file"
    assert file_words("/x/holiday_2024-beach.MP4") == "holiday 2024 beach"


def test_notes_are_units_that_keep_their_note():
    analysis = kitchen("/v/kitchen.mp4")
    logo = changes.new_note(analysis, 50, "The  logo\nis cut off", tag="red", author="Ada")
    fade = changes.new_note(analysis, 100, "Check the fade", end_frame=150, author="Grace")
    sketch = changes.new_note(analysis, 200, "", drawing=(Shape("arrow", ((0.1, 0.1), (0.5, 0.5))),), author="Ada")
    for note in (logo, fade, sketch):
        analysis = changes.add_note(analysis, note)
    analysis = changes.change_note(analysis, fade.id, status="resolved")
    notes = {u.note.id: u for u in units_of(analysis) if u.kind == "note"}
    assert (notes[logo.id].text, notes[logo.id].start, notes[logo.id].end) == ("The logo is cut off", 2.0, 2.0)
    assert notes[logo.id].people == ("P1",)  # on screen at 2 s
    assert (notes[fade.id].start, notes[fade.id].end, notes[fade.id].note.status) == (4.0, 6.0, "resolved")
    assert notes[sketch.id].text == DRAWING_ONLY  # still listed among the open notes


def test_a_new_catalog_has_the_schema_wal_and_foreign_keys(library):
    catalog, _ = library
    assert catalog.query("PRAGMA user_version")[0][0] == SCHEMA_VERSION
    assert catalog.query("PRAGMA journal_mode")[0][0] == "wal"
    assert catalog.query("PRAGMA foreign_keys")[0][0] == 1
    kitchen_id = catalog.videos()[0].id
    assert catalog.remove(kitchen_id) and not catalog.remove(kitchen_id)
    assert catalog.query("SELECT count(*) FROM units WHERE video_id = ?", (kitchen_id,))[0][0] == 0  # cascaded
    assert catalog.query("SELECT count(*) FROM unit_people WHERE video_id = ?", (kitchen_id,))[0][0] == 0
    assert catalog.query("SELECT count(*) FROM units_fts WHERE units_fts MATCH 'onions'")[0][0] == 0


def test_an_older_catalog_is_migrated_and_keeps_its_videos(tmp_path, files):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    for statement in catalog_module._statements(catalog_module.MIGRATIONS[0]):  # schema 1, as first released
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO videos (path, status, added_at) VALUES ('/videos/old.mp4', 'done', 0)")
    db.commit()
    db.close()
    with Catalog(path, readonly=True) as catalog:  # a search of an old catalog upgrades it first
        assert catalog.query("PRAGMA user_version")[0][0] == SCHEMA_VERSION == 4
        assert [v.path for v in catalog.videos()] == ["/videos/old.mp4"]
        plan = " ".join(str(r) for r in catalog.query(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM units WHERE embedding IS NOT NULL"))
        assert "units_with_vector" in plan
        assert catalog.frame_embeddings("some model")[0].size == 0  # schema 3's frame columns
        assert catalog.query("SELECT count(*) FROM unit_notes")[0][0] == 0  # schema 4's notes


def test_search_finds_the_moment_and_the_video(either_library, files):
    _, searcher = either_library
    best = searcher.search("where does the man chop onions?")[0]
    assert (best.path, best.start, best.end) == (os.path.realpath(files["kitchen.mp4"]), 0.0, 3.0)
    dog = searcher.search("dog digging")[0]
    assert dog.path.endswith("garden.mp4") and dog.start == 4.0
    assert all(a.score >= b.score for a, b in zip(searcher.search("tea"), searcher.search("tea")[1:]))


def test_common_words_rank_the_rarer_words_units_or_find_units_with_all(either_library, monkeypatch):
    """A word that many units have (here: as many as "onions") is common: the text ranking
    finds the units with the query's rarer words, common words adding to their rank; a
    query of common words alone finds the units with all of them."""
    from videoreview.library import search

    catalog, _ = either_library
    text_only = Searcher(catalog)
    assert [m.text for m in text_only.search("onions board")][:1] == ["A man chops onions on a wooden board"]
    if not isinstance(catalog, Catalog):
        catalog.query("ANALYZE unit_words")  # (the server's counts are estimates from its statistics)
    onions, board = (catalog.units_with_word(word, 1000) for word in ("onions", "board"))
    assert onions > board
    monkeypatch.setattr(search, "COMMON_WORD_UNITS", onions)
    assert [m.text for m in text_only.search("onions board")] == ["A man chops onions on a wooden board"]
    monkeypatch.setattr(search, "COMMON_WORD_UNITS", 1)  # every word is common
    both = text_only.search("onions man", top=20)
    assert both and all("onion" in m.text.lower() and "man" in m.text.lower().split() for m in both)


@pytest.mark.parametrize("query", ['onions" OR "dog', "onions) AND (", "onions*", "NEAR(onions", "onions -- ;",
                                   "onions'; DROP TABLE units; --", "man:chops", "^onions", "{onions}"])
def test_fts_and_sql_syntax_in_a_query_is_just_text(either_library, query):
    catalog, searcher = either_library
    moments = searcher.search(query)
    assert moments and any("onions" in m.text for m in moments)
    assert catalog.query("SELECT count(*) FROM units")[0][0] > 0


def test_empty_long_and_unicode_queries(either_library):
    _, searcher = either_library
    for empty in ("", "   ", "?!", "***"):
        with pytest.raises(VideoReviewError, match="query"):
            searcher.search(empty)
    long = " ".join(["onions"] + ["filler"] * 5000)
    assert "onions" in searcher.search(long)[0].text
    assert searcher.search("çhöps ONIONS")  # diacritics and case folded
    assert searcher.search("日本語の質問") == []  # nothing Japanese is indexed, nothing near it either
    assert fts_query(['a"b']) == '"a""b"' and fts_query(["where", "is", "tea"]) == '"tea"'


def test_filters_by_video_and_by_identity_id_or_name(either_library):
    catalog, searcher = either_library
    garden_id = next(v.id for v in catalog.videos() if v.path.endswith("garden.mp4"))
    assert {m.video_id for m in searcher.search("tea dog onions", top=20, video_id=garden_id)} == {garden_id}
    ada = searcher.search("tea dog onions chops", top=20, identity="ada")
    assert ada and all(m.start < m.end and ("P2" in m.people if m.path.endswith("kitchen.mp4") else "P1" in m.people)
                       for m in ada)
    assert not any("chops" in m.text for m in ada)  # P1 of the kitchen is not Ada
    assert searcher.search("onions", identity="nobody") == []


def test_moved_and_missing_files(either_library, files, tmp_path):
    catalog, searcher = either_library
    kitchen_id = next(v.id for v in catalog.videos() if v.path.endswith("kitchen.mp4"))
    moved = tmp_path / "elsewhere" / "kitchen renamed.mp4"
    moved.parent.mkdir()
    os.replace(files["kitchen.mp4"], moved)
    assert catalog.mark_missing() == [kitchen_id]
    assert catalog.video(kitchen_id).status == "missing"
    assert searcher.search("onions")[0].video_id == kitchen_id  # still searchable
    assert catalog.add_video(moved, "a" * 64) == (kitchen_id, "moved")
    video = catalog.video(kitchen_id)
    assert video.path == os.path.realpath(moved) and video.status == "done"
    assert not catalog.needs_analysis(kitchen_id)
    assert searcher.search("onions")[0].path == os.path.realpath(moved)


def test_the_vector_index_is_rebuilt_when_missing_damaged_or_behind(library, tmp_path):
    catalog, searcher = library
    vectors = catalog.vector_index
    assert searcher.search("pours") and vectors.path.exists() and vectors.rebuilt  # built on first use
    fresh = VectorIndex(catalog)
    assert fresh.index() is not None and not fresh.rebuilt  # read back from the file
    vectors.path.write_bytes(b"garbage")
    damaged = VectorIndex(catalog)
    assert damaged.index() is not None and damaged.rebuilt
    after = VectorIndex(catalog)
    assert after.index() is not None and not after.rebuilt  # the rebuilt index was saved
    os.remove(vectors.path)
    again = VectorIndex(catalog)
    assert again.index().ntotal == catalog.query("SELECT count(*) FROM units")[0][0] and again.rebuilt
    (tmp_path / "library.faiss.json").write_text('{"count": 3, "through": 1}')  # not what the file holds
    mismatched = VectorIndex(catalog)
    assert mismatched.index() is not None and mismatched.rebuilt


def test_the_vector_index_follows_the_catalog_incrementally(library, files, monkeypatch):
    catalog, searcher = library
    vectors = catalog.vector_index
    searcher.search("pours")
    before = vectors.index().ntotal
    # A new video: its units' vectors are added, nothing is rebuilt; a fresh load adds them too.
    more = files["garden.mp4"].with_name("more.mp4")
    more.write_bytes(b"more")
    analysis = dataclasses.replace(garden(str(more)), content_hash="c" * 64)
    video_id, _ = catalog.add_video(more, analysis.content_hash)
    count = catalog.index_analysis(video_id, analysis, Words().embed)
    assert searcher.search("dog digs") and not vectors.rebuilt and vectors.added == count
    assert vectors.index().ntotal == before + count
    reloaded = VectorIndex(catalog)
    assert reloaded.index().ntotal == before + count and not reloaded.rebuilt
    # Indexed again (a reviewer's edit): new unit ids, never the old ones; the old vectors stay
    # in the index (below STALE_MAX) but results come only from live units.
    monkeypatch.setattr(vectors_module, "STALE_MAX", 0.5)
    old_ids = {r[0] for r in catalog.query("SELECT id FROM units WHERE video_id = ?", (video_id,))}
    catalog.index_analysis(video_id, analysis, Words().embed)
    new_ids = {r[0] for r in catalog.query("SELECT id FROM units WHERE video_id = ?", (video_id,))}
    assert min(new_ids) > max(old_ids)
    live = {r[0] for r in catalog.query("SELECT id FROM units")}
    assert old_ids <= {unit_id for unit_id, _ in vectors.search(Words().embed(["dog digs"])[0], 100)} - live
    assert not vectors.rebuilt
    assert {m.text for m in searcher.search("dog digs a hole", top=50)} <= {
        r[0] for r in catalog.query("SELECT text FROM units")}
    monkeypatch.setattr(vectors_module, "STALE_MAX", 0.2)
    # Removed units past STALE_MAX of the index: rebuilt from the catalog.
    kitchen_id = next(v.id for v in catalog.videos() if v.path.endswith("kitchen.mp4"))
    catalog.remove(kitchen_id)
    assert all(m.video_id != kitchen_id for m in searcher.search("man onions tea", top=20))
    assert vectors.rebuilt and vectors.index().ntotal == catalog.embedding_count()


def test_a_damaged_file_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "library.sqlite3"
    path.write_bytes(b"this is not a database, but someone's data" * 100)
    before = path.read_bytes()
    with pytest.raises(LibraryError) as caught:
        Catalog(path)
    assert str(path) in str(caught.value) and "damaged" in str(caught.value) and "rebuild" in str(caught.value)
    assert path.read_bytes() == before


def test_a_catalog_from_a_newer_version_is_refused_unchanged(tmp_path):
    path = tmp_path / "library.sqlite3"
    Catalog(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = path.read_bytes()
    with pytest.raises(LibraryError, match="newer videoreview"):
        Catalog(path)
    assert path.read_bytes() == before


def test_a_locked_catalog_waits_then_says_so(tmp_path, files, monkeypatch):
    monkeypatch.setattr(catalog_module, "BUSY_SECONDS", 0.2)
    path = tmp_path / "library.sqlite3"
    Catalog(path).close()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program writing
    try:
        catalog = Catalog(path)
        with pytest.raises(LibraryError, match="locked by another program"):
            catalog.add_video(files["garden.mp4"])
        assert catalog.videos() == []  # reading still works (WAL)
        catalog.close()
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
def test_a_read_only_catalog_says_so(tmp_path, files):
    path = tmp_path / "library.sqlite3"
    Catalog(path).close()
    os.chmod(path, 0o444)
    with pytest.raises(LibraryError, match="read-only"):
        Catalog(path).add_video(files["garden.mp4"])


def test_a_read_only_opening_never_creates_or_writes(tmp_path, files):
    path = tmp_path / "library.sqlite3"
    with pytest.raises(LibraryError, match="no library yet"):
        Catalog(path, readonly=True)
    assert not path.exists()
    Catalog(path).close()
    with Catalog(path, readonly=True) as catalog:
        with pytest.raises(LibraryError, match="read-only"):
            catalog.add_video(files["garden.mp4"])
