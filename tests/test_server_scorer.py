"""ViSIL scoring on a model server: vLLM's prompt_logprobs, replayed by the loopback server
(tests/model_server.py), give each keyword's log P from the answer's tokens at the end of
the prompt; a server without them (Ollama) is refused in one line. The clip is analysed
with the fake engines (fake_engines.py)."""

from __future__ import annotations

import json

import pytest

from helpers import run
from model_server import IMAGE_TOKENS, SEEN, UNSEEN, ModelServer
from tiny_vlm import colour_clip, colour_frame
from videoreview.engines.captions.server import ServerError, ServerModel
from videoreview.engines.scoring.protocol import Source
from videoreview.engines.scoring.server import ServerScorer, keyword_log_probs
from videoreview.models.servers import Server, add_server

FRAMES = {0: colour_frame("red"), 1: colour_frame("blue"), 2: colour_frame("green")}
KEYWORDS = ["red", "green", "blue"]  # the loopback's tokens: "\nred", " gre" "en", " blu" "e"
MASKED = "a [MASK] frame, then a [MASK] one and a [MASK] one."


@pytest.fixture()
def vllm():
    server = ModelServer("vllm")
    yield server
    server.close()


def scorer(server: ModelServer) -> ServerScorer:
    return ServerScorer(ServerModel(Server("box", server.url, "colours", concurrency=2)),
                        lambda indices: [FRAMES[i] for i in indices], (0, 1, 2))


def test_each_keyword_gets_the_log_probs_of_its_own_tokens(vllm):
    sources = [Source("video"), Source("summary", "a green frame.", (0,)), Source("summary", "", ())]
    scores = scorer(vllm).keyword_log_probs_many(KEYWORDS, MASKED, sources)
    # The video shows all three colours; the summary its red keyframe and the word "green";
    # the empty summary nothing. Two-token keywords sum their tokens.
    assert scores[0] == pytest.approx([SEEN, 2 * SEEN, 2 * SEEN])
    assert scores[1] == pytest.approx([SEEN, 2 * SEEN, 2 * UNSEEN])
    assert scores[2] == pytest.approx([UNSEEN, 2 * UNSEEN, 2 * UNSEEN])
    body = vllm.requests[0]["body"]
    assert body["prompt_logprobs"] == 0 and body["continue_final_message"] and not body["add_generation_prompt"]
    assert body["messages"][-1] == {"role": "assistant", "content": "red green blue"}


def test_tau_is_the_summary_s_text_tokens_and_its_images_tokens(vllm):
    # "a green frame." is 5 of the loopback's tokens: "a", " gre", "en", " fra", "me."
    assert scorer(vllm).tokens(Source("summary", "a green frame.", (0, 2))) == 5 + 2 * IMAGE_TOKENS
    assert scorer(vllm).tokens(Source("summary", "", ())) == 0


@pytest.mark.parametrize("tokens", [
    # decoded text: a first token that also holds the template's text, a space token of its own
    [("", 0.0), ("<|assistant|>", -1.0), ("\nca", -0.5), ("t", -0.25), (" ", -0.5), ("s", -0.5), ("at", -2.0)],
    # raw byte-level BPE pieces, as older vLLM versions give them
    [("<|assistant|>", -1.0), ("\u010aca", -0.5), ("t", -0.25), ("\u0120", -0.5), ("s", -0.5), ("at", -2.0)],
    # SentencePiece pieces decoded one by one: the space before a word lost
    [("<start_of_turn>", -1.0), ("model", -1.0), ("ca", -0.5), ("t", -0.25), ("s", -1.0), ("at", -2.0)],
])
def test_the_answer_is_found_however_the_tokens_cut_and_write_it(tokens):
    assert keyword_log_probs(tokens, "cat sat", ["cat", "sat"]) == [-0.75, -3.0]
    with pytest.raises(ValueError, match="cannot tell which tokens are the keywords"):
        keyword_log_probs(tokens, "cat sit", ["cat", "sit"])


def test_a_server_without_prompt_log_probs_is_refused_in_one_line():
    server = ModelServer("ollama")
    try:
        with pytest.raises(ServerError) as refused:
            scorer(server).keyword_log_probs(KEYWORDS, MASKED, Source("video"))
    finally:
        server.close()
    message = str(refused.value)
    assert "box (" in message and "only vLLM gives them" in message and "\n" not in message


def test_visil_compares_summaries_through_the_server(vllm, fresh_home, tmp_path):
    add_server(Server("box", vllm.url, "colours"))
    clip = colour_clip(tmp_path / "colours.mp4")
    reference = tmp_path / "reference.txt"
    reference.write_text("A red frame, then a blue frame, then a green frame.")
    proc = run("visil", clip, "--scorer", "server:box", "--reference", reference, "--summaries", "text,1,3",
               "--json", "-q", "--engines", "faces=none,speech=none,screen-text=none,boundaries=fake,captions=fake")
    assert proc.returncode == 0, proc.stderr
    rows = {row["format"]: row for row in json.loads(proc.stdout)}
    assert all(row["scorer"] == "server:box" for row in rows.values())
    # The text (builtin sentences, fake_engines.py) names no colour; one keyframe shows red; three show every colour.
    assert rows["3"]["visil"] == pytest.approx(0) and rows["3"]["visil"] < rows["1"]["visil"] < rows["text"]["visil"]
    assert rows["3"]["tokens"] > rows["1"]["tokens"] > IMAGE_TOKENS > rows["text"]["tokens"] > 0
