"""Objects in the library: each COCO label's place in the WordNet hierarchy the app ships
(videoreview/coco_kinds.py), the "objects" units of an Analysis's object tracks, and a
search by what an object is a kind of ("vehicle" finds a car) on a real catalog; the "tags"
units of an image-text model's shot tags, found by name on both catalogs."""

from __future__ import annotations

from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path

import pytest

from helpers import Words
from videoreview.coco_kinds import COCO_KINDS, UNMAPPED
from videoreview.engines.objects.decode import COCO_LABELS
from videoreview.library.catalog import Catalog
from videoreview.library.search import Searcher
from videoreview.library.units import KINDS, objects_text, tag_spans, units_of
from videoreview.records import (
    Analysis,
    Appearance,
    Boundary,
    FrameCaption,
    Identity,
    ObjectDetection,
    ObjectTrack,
    ShotTag,
    VideoInfo,
)
from videoreview.taxonomy import TOO_GENERAL, taxonomy

ROOT = Path(__file__).resolve().parents[1]
WORDNET = Path("/usr/share/wordnet")


def test_every_coco_label_is_filed_in_the_hierarchy_or_listed_as_unmapped():
    tree = taxonomy()
    assert list(COCO_KINDS) == list(COCO_LABELS)
    for label, entry in COCO_KINDS.items():
        assert all(s in tree.names for s in entry.synsets()), label
        assert bool(entry.synsets()) == (label not in UNMAPPED), label
        if entry.under is None:  # the synset the label means is in the hierarchy itself
            assert entry.synset in tree.names, label
        elif entry.synset:  # it is not: filed under its nearest hypernyms there
            assert entry.synset not in tree.names, label
        assert label not in entry.words and len(set(entry.words)) == len(entry.words), label
    assert set(UNMAPPED) <= set(COCO_KINDS)


@pytest.mark.skipif(not (WORDNET / "data.noun").exists(), reason="wordnet-base is not installed")
def test_each_label_is_filed_under_the_nearest_hypernyms_wordnet_gives_it():
    loader = SourceFileLoader("build_hierarchy", str(ROOT / "scripts" / "build-imagenet-hierarchy"))
    script = module_from_spec(spec_from_loader(loader.name, loader))
    loader.exec_module(script)
    nouns, tree = script.read_nouns(WORDNET), taxonomy()

    def plain(word: str) -> str:  # "Wine glass", "wineglass"; "skis", "ski"
        return word.lower().replace(" ", "").removesuffix("s")

    def nearest(synset: str) -> set[str]:
        """The first synsets of the hierarchy on each of its hypernym paths."""
        found, todo = set(), list(nouns[synset[1:]][1])
        while todo:
            offset = todo.pop()
            if f"n{offset}" in tree.names:
                found.add(f"n{offset}")
            else:
                todo.extend(nouns[offset][1])
        return found

    for label, entry in COCO_KINDS.items():
        if not entry.synset:
            continue  # "stop sign": not in WordNet 3.0
        lemmas = {plain(w) for w in nouns[entry.synset[1:]][0]}
        assert lemmas & {plain(w) for w in (label, *entry.words)} or label == "sports ball", (label, lemmas)
        if entry.under:
            assert set(entry.under) <= nearest(entry.synset), label
        elif entry.under == ():
            assert {tree.names[s] for s in nearest(entry.synset)} <= TOO_GENERAL, label


def test_the_objects_text_says_what_the_label_is_a_kind_of():
    assert objects_text("car") == "car (motor vehicle, wheeled vehicle, vehicle, container)"
    assert "animal" in objects_text("dog") and "furniture" in objects_text("chair")
    assert "food" in objects_text("pizza") and "furniture" in objects_text("couch").split("(")[1]
    assert "animal" in objects_text("giraffe")  # filed under "ruminant": the hierarchy has no giraffe
    assert "animal" not in objects_text("kite") and "plaything" in objects_text("kite")  # the toy, not the hawk
    assert "beverage" not in objects_text("cup") and "container" in objects_text("cup")  # not the punch
    assert objects_text("fire hydrant") == "fire hydrant (hydrant, fireplug)"  # unmapped: its own words only
    assert objects_text("tabby") == "tabby (" + ", ".join(taxonomy().kinds("tabby")) + ")"  # not a COCO label
    assert objects_text("no such thing") == "no such thing"
    assert "objects" in KINDS


def street(path: str) -> Analysis:
    """10 s: a car drives by (two tracks, the second overlapping the first), a dog runs
    across with Ada (P1) on screen, and a bus seen once, in no track."""
    def track(n: int, label: str, start: float, end: float) -> ObjectTrack:
        return ObjectTrack(n, label, start, end, score=0.7, detections=int(end - start), engine="nanodet@1")

    return Analysis(
        video=VideoInfo(path, duration=10.0, fps=25.0, frame_count=250, width=640, height=360),
        content_hash="c" * 64,
        captions=(FrameCaption(0.0, 0, "A quiet street in the morning"),),
        identities=(Identity("P1", name="Ada", appearances=(Appearance(6.0, 10.0),)),),
        objects=(ObjectDetection(2.0, 50, "car", (10, 10, 100, 50), 0.8, 0),
                 ObjectDetection(3.5, 87, "car", (60, 10, 100, 50), 0.7, 1),
                 ObjectDetection(6.0, 150, "dog", (200, 200, 80, 60), 0.9, 2),
                 ObjectDetection(8.0, 200, "bus", (0, 0, 300, 200), 0.5, -1)),
        object_tracks=(track(0, "car", 2.0, 4.0), track(1, "car", 3.5, 5.0), track(2, "dog", 6.0, 9.0)),
    )


def test_object_tracks_are_units_of_their_label_merged_where_they_overlap():
    objects = [u for u in units_of(street("/v/street.mp4")) if u.kind == "objects"]
    assert [(u.text.split(" (")[0], u.start, u.end, u.people) for u in objects] == [
        ("car", 2.0, 5.0, ()), ("dog", 6.0, 9.0, ("P1",))]


@pytest.fixture()
def library(tmp_path):
    video = tmp_path / "street.mp4"
    video.write_bytes(b"street")
    catalog = Catalog(tmp_path / "library.sqlite3")
    analysis = street(str(video))
    video_id, _ = catalog.add_video(video, analysis.content_hash)
    catalog.index_analysis(video_id, analysis, Words().embed)
    yield catalog
    catalog.close()


@pytest.mark.parametrize("embedder", [None, Words()], ids=["text", "hybrid"])
def test_a_search_by_kind_finds_the_objects_span(library, embedder):
    searcher = Searcher(library, embedder)
    for query, label, span in (("vehicle", "car", (2.0, 5.0)), ("car", "car", (2.0, 5.0)),
                               ("animal", "dog", (6.0, 9.0)), ("a dog", "dog", (6.0, 9.0))):
        best = searcher.search(query)[0]
        assert (best.kind, best.text.split(" (")[0], (best.start, best.end)) == ("objects", label, span), query
    assert searcher.search("bus") == []  # seen once, in no track
    assert searcher.search("vehicle", kind="objects")[0].start == 2.0
    assert [m.text.split(" (")[0] for m in searcher.search("animal", identity="Ada")] == ["dog"]
    assert searcher.search("animal", identity="P2") == []


@pytest.mark.models
def test_a_real_analysis_finds_the_motorcycle_by_what_it_is(tmp_path, home):
    from caption_set import make_clip
    from videoreview.pipeline import StageCache, analyze

    path, _labels = make_clip(tmp_path, "motorcycle-shake")
    analysis = analyze(path, {"boundaries": "builtin", "objects": "nanodet"}, cache=StageCache(tmp_path / "c"))
    with Catalog(tmp_path / "library.sqlite3") as catalog:
        video_id, _ = catalog.add_video(path, analysis.content_hash)
        catalog.index_analysis(video_id, analysis)
        searcher = Searcher(catalog)
        for query in ("vehicle", "motorcycle"):
            found = [m for m in searcher.search(query, kind="objects") if "motorcycle" in m.text]
            assert found, (query, [(t.label, t.start, t.end) for t in analysis.object_tracks])
            assert 0.0 <= found[0].start < found[0].end <= analysis.video.duration


# ----------------------------------------------------------------------------- shot tags


def parrot(path: str) -> Analysis:
    """30 s in three shots (cuts at 14 and 20 s), named by an image-text model: a parrot on a
    beach, the beach alone, the parrot again; Ada (P1) on screen in the last. The captions
    say nothing of either (the builtin's), so only the tags can find them."""
    def tag(start: float, end: float, name: str, score: float) -> ShotTag:
        return ShotTag(start, end, round(start * 25), name, score, "siglip:tiny@1")

    return Analysis(
        video=VideoInfo(path, duration=30.0, fps=25.0, frame_count=750, width=640, height=360),
        content_hash="d" * 64,
        boundaries=(Boundary(14.0, 350, "cut", 0.9), Boundary(20.0, 500, "cut", 0.9)),
        captions=(FrameCaption(0.0, 0, "A picture in grey"), FrameCaption(14.0, 350, "A picture in grey"),
                  FrameCaption(20.0, 500, "A picture in grey")),
        identities=(Identity("P1", name="Ada", appearances=(Appearance(21.0, 30.0),)),),
        shot_tags=(tag(0.0, 14.0, "parrot", 0.83), tag(0.0, 14.0, "beach", 0.71), tag(14.0, 20.0, "beach", 0.62),
                   tag(20.0, 30.0, "parrot", 0.77)),
    )


def test_shot_tags_are_units_of_their_name_over_the_shots_in_a_row():
    assert tag_spans(parrot("/v/p.mp4").shot_tags) == [("beach", 0.0, 20.0), ("parrot", 0.0, 14.0),
                                                       ("parrot", 20.0, 30.0)]
    tags = [u for u in units_of(parrot("/v/p.mp4")) if u.kind == "tags"]
    assert [(u.text, u.start, u.end, u.people) for u in tags] == [
        ("beach", 0.0, 20.0, ()), ("parrot (bird, animal)", 0.0, 14.0, ()),
        ("parrot (bird, animal)", 20.0, 30.0, ("P1",))]
    assert "tags" in KINDS


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_search_finds_the_parrot_by_its_tag_on_either_catalog(tmp_path, request, backend):
    """The kind is a new value in the units' kind column, which neither catalog's schema limits."""
    video = tmp_path / "IMG_0412.mp4"  # a phone's name: nothing but the tags says "parrot"
    video.write_bytes(b"parrot")
    if backend == "sqlite":
        catalog = Catalog(tmp_path / "library.sqlite3")
    else:
        from videoreview.library.team.catalog import TeamCatalog

        catalog = TeamCatalog(request.getfixturevalue("team_url"))
    with catalog:
        video_id, _ = catalog.add_video(video, parrot(str(video)).content_hash)
        catalog.index_analysis(video_id, parrot(str(video)), Words().embed)
        for embedder in (None, Words()):
            searcher = Searcher(catalog, embedder)
            found = searcher.search("a white parrot")
            assert {(m.kind, m.start, m.end) for m in found[:2]} == {("tags", 0.0, 14.0), ("tags", 20.0, 30.0)}
            assert all(m.text == "parrot (bird, animal)" for m in found[:2]) and found[0].path == str(video)
            assert {(m.start, m.end) for m in searcher.search("bird", kind="tags")} == {(0.0, 14.0), (20.0, 30.0)}
            assert [(m.kind, m.start, m.end) for m in searcher.search("beach")][:1] == [("tags", 0.0, 20.0)]
            assert [(m.start, m.end) for m in searcher.search("parrot", identity="Ada")] == [(20.0, 30.0)]
            assert searcher.search("parrot", kind="objects") == []
