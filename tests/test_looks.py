"""What a picture looks like where nothing in it is recognised (engines/captions/looks.py)."""

import numpy as np

from videoreview.engines.captions.looks import colour_shares, look, look_phrase


def flat(rgb, size=(90, 160)) -> np.ndarray:
    return np.full((*size, 3), rgb, np.uint8)


def test_basic_colours_are_named():
    named = {(200, 30, 30): "red", (230, 140, 20): "amber", (230, 220, 40): "yellow", (40, 160, 60): "green",
             (30, 60, 200): "blue", (130, 40, 170): "purple", (110, 60, 30): "brown", (5, 5, 5): "black",
             (245, 245, 245): "white", (128, 128, 128): "grey"}
    for rgb, name in named.items():
        assert colour_shares(flat(rgb)) == {name: 1.0}, (rgb, colour_shares(flat(rgb)))


def test_a_dark_sea_a_bright_page_and_confetti():
    sea = np.concatenate([flat((10, 40, 120), (60, 160)), flat((2, 2, 6), (30, 160))])
    measured = look(sea)
    assert measured["light"] < 0.25 and [c for c, _ in measured["colours"]] == ["blue", "black"]
    assert look_phrase(measured["light"], dict(measured["colours"])) == "a dark picture in blue and black"
    page = flat((250, 250, 245))
    assert look_phrase(look(page)["light"], dict(look(page)["colours"])) == "a bright picture in white"
    patches = [(200, 30, 30), (230, 140, 20), (230, 220, 40), (40, 160, 60), (30, 60, 200), (130, 40, 170),
               (245, 245, 245), (5, 5, 5)]
    confetti = np.concatenate([flat(rgb, (90, 20)) for rgb in patches], axis=1)  # eight colours, an eighth each
    assert look_phrase(0.5, colour_shares(confetti)) == "a picture in many colours"


def test_objects_are_counted_in_the_scene_and_people_without_faces_are_people():
    from videoreview.engines.captions.builtin import State, objects_phrase

    assert objects_phrase([("car", 2), ("dog", 1)]) == "two cars and a dog"
    assert objects_phrase([("bus", 3), ("person", 2), ("knife", 1), ("cup", 1)]) == "three buses, two people and a cup"
    state = State(shot=1, view="", people=(), unknown_faces=0, subject="tabby", text=False, camera="is still",
                  moving=False, objects=(("person", 1), ("car", 2)))
    assert state.scene() == "a person, with a tabby and two cars"  # the classifier's subject, then the objects
    assert state.subject_name() == "a person"
    alone = State(shot=1, view="", people=(), unknown_faces=0, subject=None, text=False, camera="is still",
                  moving=False, objects=(("umbrella", 1),))
    assert alone.scene() == "an umbrella" and alone.subject_name() == "the umbrella"
    cat = State(shot=1, view="", people=(), unknown_faces=0, subject="tabby", text=False, camera="is still",
                moving=False, objects=(("dog", 1), ("cup", 1)))
    assert cat.scene() == "a tabby and a cup"  # a dog and a tabby are both animals: the classifier is believed
