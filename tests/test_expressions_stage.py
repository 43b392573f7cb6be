"""What each face shows (pipeline/stages/expressions.py): the real model on the faces of a
composited scene, the spans made of a track's looks, and the stage's wiring."""

from __future__ import annotations

from collections import Counter

import pytest

from videoreview.engines.expressions import LABELS
from videoreview.pipeline import StageCache, analyze
from videoreview.pipeline.stages.expressions import FaceLook, expression_spans
from videoreview.records import Analysis


def look(time: float, label: str, p: float = 0.9) -> FaceLook:
    rest = (1 - p) / (len(LABELS) - 1)
    return FaceLook(time, 3, tuple(p if each == label else rest for each in LABELS))


def test_spans_follow_the_likeliest_expression_and_ignore_one_odd_look():
    looks = [look(t, "neutral") for t in (0.0, 1.0, 2.0)] + [look(3.0, "sad")] + \
        [look(t, "neutral") for t in (4.0, 5.0)] + [look(t, "happy") for t in (6.0, 7.0, 8.0, 9.0)]
    spans = expression_spans(3, looks, 10.0, "P2", "fer@1")
    assert [(s.label, s.start, s.end) for s in spans] == [("neutral", 0.0, 6.0), ("happy", 6.0, 10.0)]
    assert all(s.identity == "P2" and s.track == 3 and s.engine == "fer@1" for s in spans)
    assert 0.6 < spans[0].score < 0.9 and spans[1].score > 0.6  # smoothed: the odd look and the turn weigh in


def test_the_stage_runs_after_faces_on_their_tracks_and_is_cached(scene, tmp_path):
    from fake_engines import PEOPLE

    cache = StageCache(tmp_path / "cache")
    engines = {"boundaries": "fake", "faces": PEOPLE, "expressions": "fake"}
    analysis = analyze(scene.path, engines, cache=cache)
    tracks = {t.id: t for t in analysis.face_tracks}
    assert analysis.expressions and {e.track for e in analysis.expressions} <= set(tracks)
    assert all(e.identity == tracks[e.track].identity for e in analysis.expressions)
    assert all(tracks[e.track].start <= e.start < e.end for e in analysis.expressions)
    assert analysis.engines["expressions"] == "fake@1"
    assert Analysis.from_dict(analysis.to_dict()) == analysis
    again = analyze(scene.path, engines, cache=cache)
    assert again.expressions == analysis.expressions
    assert not analyze(scene.path, {**engines, "expressions": "none"}, cache=cache).expressions


@pytest.mark.models
def test_eileen_collins_smiles_in_every_shot_she_is_in(scene, tmp_path, home):
    analysis = analyze(scene.path, {"boundaries": "builtin", "faces": "blazeface", "expressions": "fer"},
                       cache=StageCache(tmp_path / "cache"))
    who = {}  # face track -> the person whose face it follows
    for face in analysis.faces:
        name = scene.person_at(face.frame, face.box)
        if name and face.track >= 0:
            who.setdefault(face.track, Counter())[name] += 1
    said = Counter()
    for span in analysis.expressions:
        said[who[span.track].most_common(1)[0][0], span.label] += span.end - span.start
    eileen = {label: seconds for (name, label), seconds in said.items() if name == "eileen"}
    assert max(eileen, key=eileen.get) == "happy", said
    assert analysis.engines["expressions"].startswith("fer@")
