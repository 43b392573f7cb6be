"""Prompts and reply parsing for the VLM captioners: real-looking replies, good and bad."""

from videoreview.engines.captions.parse import parse_boundary_caption, parse_choice, parse_frame_captions
from videoreview.engines.captions.prompts import caption_prompt, matching_prompt, progression_prompt


def test_caption_prompt_is_the_papers():
    prompt = caption_prompt(3)
    assert prompt.startswith("These are 3 frames extracted from a video sequence depicting action. "
                             "Provide a detailed description for each frame.")
    assert "not referencing other frames" in prompt and "capturing the progression of the action" in prompt
    assert prompt.endswith("<Frame 1>: Your description\n<Frame 2>: Your description\n<Frame 3>: Your description")
    assert "(3) The people visible are P1, P2" in caption_prompt(2, identities=["P1", "P2"])


def test_well_formed_reply():
    reply = "<Frame 1>: A man holds a knife over a tomato.\n<Frame 2>: The man has cut the tomato in half."
    assert parse_frame_captions(reply, 2) == ["A man holds a knife over a tomato.",
                                              "The man has cut the tomato in half."]


def test_variants_models_produce():
    reply = ("Sure! Here are the descriptions:\n\n**Frame 1:** A woman lifts the lid\nof the pot, steam rising.\n"
             "Frame 2 - She stirs the soup.\n[Frame 3]: She tastes it from the spoon.")
    assert parse_frame_captions(reply, 3) == [
        "A woman lifts the lid of the pot, steam rising.", "She stirs the soup.", "She tastes it from the spoon."]


def test_missing_repeated_and_out_of_range_frames_lose_nothing_else():
    reply = ("<Frame 1>: P1 opens the door.\n<Frame 3>: P1 sits down.\n<Frame 3>: (repeated) P1 sits.\n"
             "<Frame 7>: hallucinated frame")
    assert parse_frame_captions(reply, 3) == ["P1 opens the door.", None, "P1 sits down."]


def test_zero_based_numbering_and_cut_off_reply():
    reply = "<Frame 0>: A dog runs.\n<Frame 1>: The dog jumps over the fen"  # stopped at the token cap
    assert parse_frame_captions(reply, 2) == ["A dog runs.", "The dog jumps over the fen"]


def test_garbage_gives_nothing_not_an_exception():
    assert parse_frame_captions("I cannot help with that.", 2) == [None, None]
    assert parse_frame_captions("", 3) == [None, None, None]
    assert parse_frame_captions("A single frame answered plainly.", 1) == ["A single frame answered plainly."]


def test_boundary_and_choice_replies():
    assert parse_boundary_caption("Subject: the man\nBefore: standing still\nAfter: running away") == (
        "the man", "standing still", "running away")
    assert parse_boundary_caption("**Subject**: P2\n- Before: seated\n- After: standing up") == (
        "P2", "seated", "standing up")
    assert parse_boundary_caption("Subject: the man\nBefore: standing") is None
    assert parse_choice("B", 3) == 1 and parse_choice(" a. Action Progression", 3) == 0
    assert parse_choice("Z", 3) is None and parse_choice("no idea", 3) is None


def test_judge_prompts():
    prompt = matching_prompt(["a man cuts", "a man eats"])
    assert "A. a man cuts\nB. a man eats\nC. None of the above" in prompt
    assert "Image 1: x Image 2: y" in progression_prompt("x", "y")
