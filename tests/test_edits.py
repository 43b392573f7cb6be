"""A reviewer's caption and boundary edits, and that a re-analysis keeps them (the fake
engines of fake_engines.py find the cuts and write the captions)."""

import pytest

from fake_engines import ENGINES
from videoreview.errors import RecordError
from videoreview.pipeline import StageCache, analyze, edits, store
from videoreview.records import Analysis
from videos import make_cuts_video


@pytest.fixture(scope="module")
def cuts(tmp_path_factory):
    return make_cuts_video(tmp_path_factory.mktemp("edits"))


@pytest.fixture(scope="module")
def analysed(cuts, tmp_path_factory):
    cache = StageCache(tmp_path_factory.mktemp("cache"))
    return analyze(cuts.path, ENGINES, cache=cache), cache


def test_caption_edit_is_marked_and_survives_reanalysis(cuts, analysed):
    """And the notes, and which were deleted."""
    from videoreview.notes import changes

    analysis, cache = analysed
    first = analysis.captions[1]
    kept, gone = (changes.new_note(analysis, frame, text) for frame, text in ((5, "kept"), (6, "gone")))
    noted = changes.delete_note(changes.add_note(changes.add_note(analysis, kept), gone), gone.id)
    edited = edits.edit_caption(noted, first.frame, "  A reviewer's words.  ")
    caption = next(c for c in edited.captions if c.frame == first.frame)
    assert caption.text == "A reviewer's words." and caption.edited
    assert analysis.captions[1].text == first.text  # the original is untouched (records are immutable)
    again = analyze(cuts.path, ENGINES, cache=cache, previous=edited)
    assert next(c for c in again.captions if c.frame == first.frame).text == "A reviewer's words."
    assert (again.notes, again.deleted_notes) == ((kept,), noted.deleted_notes) and noted.deleted_notes


def test_add_move_delete_boundaries_survive_reanalysis(cuts, analysed):
    analysis, cache = analysed
    fps = analysis.video.fps
    cut_frames = [b.frame for b in analysis.boundaries if b.kind == "cut"]
    assert cut_frames == list(cuts.cut_frames)
    edited = edits.add_boundary(analysis, 1.0, "event")  # frame 25
    edited = edits.delete_boundary(edited, cut_frames[0])  # an engine's cut the reviewer rejects
    edited = edits.move_boundary(edited, cut_frames[1], (cut_frames[1] + 3) / fps)  # three frames late
    frames = {b.frame: b for b in edited.boundaries}
    assert 25 in frames and frames[25].edited and frames[25].kind == "event"
    assert cut_frames[0] not in frames and cut_frames[1] not in frames
    moved = frames[cut_frames[1] + 3]
    assert moved.kind == "cut" and moved.edited and moved.time == pytest.approx((cut_frames[1] + 3) / fps)
    assert set(edited.removed_boundaries) == {cut_frames[0], cut_frames[1]}

    again = analyze(cuts.path, ENGINES, cache=cache, previous=edited)
    assert sorted(b.frame for b in again.boundaries) == sorted(frames)
    # the added boundary got a Subject / Before / After caption from the captions stage
    assert next(b for b in again.boundaries if b.frame == 25).caption is not None
    # and it survives the JSON round trip
    assert Analysis.from_dict(again.to_dict()).removed_boundaries == again.removed_boundaries


def test_boundary_caption_and_kind_edits(analysed):
    analysis, _ = analysed
    frame = analysis.boundaries[0].frame
    edited = edits.edit_boundary_caption(analysis, frame, "the man", "standing", "running")
    boundary = next(b for b in edited.boundaries if b.frame == frame)
    assert (boundary.caption.subject, boundary.caption.before, boundary.caption.after) == \
        ("the man", "standing", "running")
    assert boundary.edited and boundary.caption.engine == edits.REVIEWER
    assert next(b for b in edits.set_boundary_kind(edited, frame, "gradual").boundaries
                if b.frame == frame).kind == "gradual"


def test_bad_edits_raise_and_change_nothing(analysed):
    analysis, _ = analysed
    taken = analysis.boundaries[0]
    with pytest.raises(RecordError, match="already a boundary"):
        edits.add_boundary(analysis, taken.time)
    with pytest.raises(RecordError, match="not one of"):
        edits.add_boundary(analysis, 0.5, "explosion")
    with pytest.raises(RecordError, match="no boundary at frame 3"):
        edits.delete_boundary(analysis, 3)
    with pytest.raises(RecordError, match="cannot be empty"):
        edits.edit_caption(analysis, analysis.captions[0].frame, "   ")
    with pytest.raises(RecordError, match="must all be filled"):
        edits.edit_boundary_caption(analysis, taken.frame, "x", "", "y")
    assert edits.move_boundary(analysis, taken.frame, taken.time) is analysis


def test_store_round_trip(analysed, tmp_path, monkeypatch):
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path))
    analysis, _ = analysed
    assert store.load_saved(analysis.content_hash) is None
    path = store.save(analysis)
    assert path.parent == tmp_path / "analyses"
    assert store.load_saved(analysis.content_hash) == analysis
    path.write_text("{broken")
    with pytest.raises(RecordError, match="not valid JSON"):
        store.load_saved(analysis.content_hash)


def test_summaries_set_edited_and_kept_by_reanalysis(cuts, analysed):
    from videoreview.summary.builder import build, standard_summaries

    analysis, cache = analysed
    built = edits.set_summaries(analysis, standard_summaries(analysis) + [build(analysis, "keyframes+text", 2)])
    assert [len(s.keyframe_frames) for s in built.summaries] == sorted(len(s.keyframe_frames) for s in built.summaries)
    index = next(i for i, s in enumerate(built.summaries) if len(s.keyframe_frames) == 1)
    edited = edits.edit_summary_text(built, index, "Before [KEYFRAME1] and after.")
    assert edited.summaries[index].text == "Before [KEYFRAME1] and after." and edited.summaries[index].edited
    assert not built.summaries[index].edited
    with pytest.raises(RecordError, match=r"\[KEYFRAME1\]"):
        edits.edit_summary_text(built, index, "No keyframe here.")
    with pytest.raises(RecordError, match="empty"):
        edits.edit_summary_text(built, 0, "   ")
    # Building again keeps the reviewer's text; so does re-analysis, which rebuilds the rest.
    rebuilt = edits.set_summaries(edited, standard_summaries(edited))
    assert edited.summaries[index] in rebuilt.summaries
    again = analyze(cuts.path, ENGINES, cache=cache, previous=edited)
    assert again.summaries == edited.summaries


def test_analyse_and_save_keeps_the_saved_edits(cuts, analysed, tmp_path, monkeypatch):
    """The one way the CLI, the window's child, the indexer and a cluster worker analyse:
    the saved Analysis's edits kept, the result saved; a damaged saved file rebuilt; with
    ``save=False`` and no previous, nothing read or written."""
    from videoreview.pipeline.analyse_and_save import analyse_and_save

    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path))
    analysis, cache = analysed
    frame = analysis.captions[0].frame
    store.save(edits.edit_caption(analysis, frame, "Saved words."))
    again = analyse_and_save(cuts.path, engines=ENGINES, cache=cache)
    assert next(c for c in again.captions if c.frame == frame).text == "Saved words."
    assert store.load_saved(analysis.content_hash) == again

    unsaved = analyse_and_save(cuts.path, None, save=False, engines=ENGINES, cache=cache)
    assert unsaved.captions == analysis.captions  # the saved edit was not read...
    assert store.load_saved(analysis.content_hash) == again  # ...and nothing was written

    store.saved_path(analysis.content_hash).write_text("{broken")
    assert store.saved_analysis(cuts.path) is None
    rebuilt = analyse_and_save(cuts.path, engines=ENGINES, cache=cache)
    assert rebuilt.captions == analysis.captions and store.load_saved(analysis.content_hash) == rebuilt
