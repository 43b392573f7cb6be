"""Identities over one video or a set of videos, and the reviewer's corrections to them.

    analyses = assign_identities([a1, a2, a3], distance)   # P1, P2, ... shared by the set
    a1 = edit_identities(a1, rename(a1, "P2", "Anna"), distance)

``distance`` is the face engine's ``cluster_distance`` (``face_cluster_distance``).

Clustering itself is in engines/faces/clustering.py. Edits (rename, merge, split, not a
face) are records in the Analysis, replayed after every clustering, so a re-analysis
keeps them. Each edit names a track by one of its faces (frame + box), which stays true
when track ids and P-numbers change.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import replace

import numpy as np

from ...engines.faces.clustering import TrackInfo, cluster_tracks, name_by_first_appearance
from ...records import Analysis, Appearance, FaceDetection, Identity, IdentityEdit
from ...tracking import iou

# Tracks below this quality (see faces.track_quality) do not shape clusters.
GOOD_QUALITY = 0.35
# An edit's face matches a face of a new analysis at the same frame overlapping this much.
EDIT_MATCH_IOU = 0.5

Key = tuple[int, int]  # (index of the analysis in the set, track id)


def assign_identities(analyses: list[Analysis], distance: float, sample_interval: float = 0.5) -> list[Analysis]:
    """The analyses with identities assigned over the whole set: clustering, then edits."""
    infos, first_seen, faceless = [], {}, []
    for v, analysis in enumerate(analyses):
        frames = _frames_by_track(analysis)
        for track in analysis.face_tracks:
            key = (v, track.id)
            first_seen[key] = (v, track.start)
            if not track.embedding:  # every face too small for a vector: nobody to name
                faceless.append(key)
                continue
            infos.append(TrackInfo(key=key, embedding=np.asarray(track.embedding, np.float32),
                                   first_time=track.start, frames=frozenset(frames[track.id]), shot=track.shot,
                                   good=track.quality >= GOOD_QUALITY))
    labels = {**cluster_tracks(infos, distance), **dict.fromkeys(faceless)}
    labels, names, removed, edited = _replay_edits(analyses, labels)
    ids = name_by_first_appearance({k: lab for k, lab in labels.items() if k not in removed}, first_seen)
    id_names = {ids[k]: names[lab] for k, lab in labels.items() if k in ids and lab in names}
    id_edited = {ids[k] for k, lab in labels.items() if k in ids and lab in edited}
    return [_rebuild(a, v, ids, removed, id_names, id_edited, sample_interval) for v, a in enumerate(analyses)]


def _frames_by_track(analysis: Analysis) -> dict[int, set[int]]:
    found: dict[int, set[int]] = defaultdict(set)
    for face in analysis.faces:
        found[face.track].add(face.frame)
    return found


def find_track(analyses: list[Analysis], v: int, video: str, frame: int, box) -> Key | None:
    """The track with a face at ``frame`` overlapping ``box``, in the analysis whose
    content hash is ``video`` (or analysis ``v`` when ``video`` is empty)."""
    candidates = [i for i, a in enumerate(analyses) if a.content_hash == video] if video else [v]
    best, best_overlap = None, EDIT_MATCH_IOU
    for i in candidates:
        for face in analyses[i].faces:
            if face.frame == frame:
                overlap = iou(face.box, box)
                if overlap >= best_overlap:
                    best, best_overlap = (i, face.track), overlap
    return best


def _replay_edits(analyses, labels):
    labels = dict(labels)
    names: dict[int, str | None] = {}
    removed: set[Key] = set()
    edited: set[int] = set()
    fresh = max([lab for lab in labels.values() if lab is not None], default=-1) + 1

    def label_of(key: Key) -> int:
        nonlocal fresh
        if labels[key] is None:  # an unassigned track the reviewer cares about becomes someone
            labels[key], fresh = fresh, fresh + 1
        return labels[key]

    for v, analysis in enumerate(analyses):
        for edit in analysis.identity_edits:
            key = find_track(analyses, v, edit.video, edit.frame, edit.box)
            if key is None or key in removed:
                continue  # the face is gone (other engine, other cuts): the edit waits, unused
            if edit.op == "not_a_face":
                removed.add(key)
            elif edit.op == "split":
                labels[key], fresh = fresh, fresh + 1
                edited.add(labels[key])
            elif edit.op == "rename":
                names[label_of(key)] = edit.name
                edited.add(labels[key])
            elif edit.op == "merge":
                other = find_track(analyses, v, edit.other_video, edit.other_frame, edit.other_box)
                if other is None or other in removed:
                    continue
                keep, gone = label_of(key), label_of(other)
                for k, lab in labels.items():
                    if lab == gone:
                        labels[k] = keep
                if keep not in names and gone in names:
                    names[keep] = names[gone]
                edited.add(keep)
    return labels, names, removed, edited


def _rebuild(analysis: Analysis, v: int, ids, removed, id_names, id_edited, step: float) -> Analysis:
    gone = {t for (i, t) in removed if i == v}
    tracks = tuple(replace(t, identity=ids.get((v, t.id))) for t in analysis.face_tracks if t.id not in gone)
    faces = tuple(replace(f, identity=ids.get((v, f.track))) for f in analysis.faces if f.track not in gone)
    by_id: dict[str, list] = defaultdict(list)
    for track in tracks:
        if track.identity is not None:
            by_id[track.identity].append(track)
    shot_starts = analysis.shot_changes()
    identities = []
    for pid in sorted(by_id, key=lambda p: int(p[1:])):
        members = by_id[pid]
        best = max(members, key=lambda t: (t.quality, t.size))
        best_faces = [f for f in faces if f.track == best.id]
        exemplar = max(best_faces, key=lambda f: f.box[2] * f.box[3]) if best_faces else None
        identities.append(Identity(
            id=pid, name=id_names.get(pid), appearances=_spans(members, step, shot_starts),
            track_ids=tuple(sorted(t.id for t in members)), exemplar=exemplar, edited=pid in id_edited,
        ))
    renamed = _rename_ids_in_captions(analysis, _id_changes(analysis.face_tracks, tracks))
    return replace(renamed, faces=faces, face_tracks=tracks, identities=tuple(identities))


def _id_changes(old_tracks, new_tracks) -> dict[str, str | None]:
    """Old id -> new id, by the tracks that had each (the new id most of its faces got)."""
    votes: dict[str, dict[str | None, int]] = defaultdict(lambda: defaultdict(int))
    new_of = {t.id: t.identity for t in new_tracks}
    for track in old_tracks:
        if track.identity is not None:
            votes[track.identity][new_of.get(track.id)] += track.faces
    return {old: max(counts, key=counts.get) for old, counts in votes.items()}


_ID = re.compile(r"\bP\d+\b")


def _rename_ids_in_captions(analysis: Analysis, changes: dict[str, str | None]) -> Analysis:
    """Captions name people by id (P1, ...); when clustering renumbers them (a video set,
    an edit), the text follows. An id that no longer exists becomes "someone"."""
    if all(old == new for old, new in changes.items()):
        return analysis

    def fix(text: str) -> str:
        return _ID.sub(lambda m: (changes[m.group(0)] or "someone") if m.group(0) in changes else m.group(0), text)

    captions = tuple(replace(c, text=fix(c.text)) for c in analysis.captions)
    boundaries = tuple(b if b.caption is None else replace(b, caption=replace(
        b.caption, subject=fix(b.caption.subject), before=fix(b.caption.before), after=fix(b.caption.after)))
        for b in analysis.boundaries)
    return replace(analysis, captions=captions, boundaries=boundaries)


def _spans(tracks, step: float, shot_starts: list[float]) -> tuple[Appearance, ...]:
    """When an identity is on screen: its tracks' spans (a face seen at a sample stays
    seen until the next sample, or the next cut if that comes first), joined where they
    touch or miss each other by less than half a sample step (sample times fall on frame
    times, not exactly every step)."""
    spans: list[list[float]] = []
    for track in sorted(tracks, key=lambda t: t.start):
        start, end = track.start, track.end + step
        next_cut = bisect.bisect_right(shot_starts, track.end)
        if next_cut < len(shot_starts):
            end = min(end, shot_starts[next_cut])
        if spans and start <= spans[-1][1] + step / 2:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    return tuple(Appearance(round(s, 3), round(e, 3)) for s, e in spans)


def exemplar_image(analysis: Analysis, face: FaceDetection, path, margin: float = 0.4) -> None:
    """Save the face (with ``margin`` of its size around it) from the video as an image."""
    import cv2

    from ...media import open_video

    with open_video(analysis.video.path) as source:
        frame = source.frames_at_indices([face.frame]).frames[0]
    x, y, w, h = face.box
    height, width = frame.shape[:2]
    x0, y0 = max(0, int(x - margin * w)), max(0, int(y - margin * h))
    x1, y1 = min(width, int(x + w * (1 + margin))), min(height, int(y + h * (1 + margin)))
    crop = cv2.cvtColor(np.ascontiguousarray(frame[y0:y1, x0:x1]), cv2.COLOR_RGB2BGR)
    if not cv2.imwrite(str(path), crop):
        raise OSError(f"{path}: could not write the image")


# -- edits a reviewer makes (the GUI and the CLI call these) --------------------------------

def _face_of_identity(analysis: Analysis, pid: str) -> FaceDetection:
    for identity in analysis.identities:
        if identity.id == pid and identity.exemplar is not None:
            return identity.exemplar
    raise KeyError(f"no identity {pid!r} in {analysis.video.path}")


def _face_of_track(analysis: Analysis, track_id: int) -> FaceDetection:
    for face in analysis.faces:
        if face.track == track_id:
            return face
    raise KeyError(f"no face track {track_id} in {analysis.video.path}")


def rename(analysis: Analysis, pid: str, name: str | None) -> IdentityEdit:
    face = _face_of_identity(analysis, pid)
    return IdentityEdit(op="rename", frame=face.frame, box=face.box, video=analysis.content_hash, name=name)


def merge(analysis: Analysis, pid: str, other_pid: str) -> IdentityEdit:
    face, other = _face_of_identity(analysis, pid), _face_of_identity(analysis, other_pid)
    return IdentityEdit(op="merge", frame=face.frame, box=face.box, video=analysis.content_hash,
                        other_frame=other.frame, other_box=other.box, other_video=analysis.content_hash)


def split(analysis: Analysis, track_id: int) -> IdentityEdit:
    face = _face_of_track(analysis, track_id)
    return IdentityEdit(op="split", frame=face.frame, box=face.box, video=analysis.content_hash)


def not_a_face(analysis: Analysis, track_id: int) -> IdentityEdit:
    face = _face_of_track(analysis, track_id)
    return IdentityEdit(op="not_a_face", frame=face.frame, box=face.box, video=analysis.content_hash)


def edit_identities(analysis: Analysis, edit: IdentityEdit, distance: float) -> Analysis:
    """The analysis with ``edit`` recorded and identities assigned again."""
    analysis = replace(analysis, identity_edits=analysis.identity_edits + (edit,))
    return assign_identities([analysis], distance)[0]


def apply_identity_edit(analysis: Analysis, edit: IdentityEdit) -> Analysis:
    """``edit_identities`` at the clustering distance of the face engine that made ``analysis``."""
    return edit_identities(analysis, edit, face_cluster_distance(analysis.engines.get("faces", "")))


def face_cluster_distance(engine: str) -> float:
    """The clustering distance of a face engine given as "name" or "name@version" (as
    Analysis.engines records it; "" for the default engine), asked of the engine itself:
    made, its models not loaded. UnknownEngine (a KeyError) for a name no engine has."""
    from ...engines import registry

    name = engine.split("@", 1)[0] or registry.capability("faces").default
    return registry.create("faces", name).cluster_distance
