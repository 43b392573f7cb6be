"""Captions from a model server: the OpenAI chat completions client against a loopback
server replaying vLLM's and Ollama's reply shapes, slow replies, errors and bad JSON. The
analyses find their cuts with the fake boundaries engine (fake_engines.py); the builtin
captioner still measures every frame beside the server, as it does for any VLM."""

import socket
import threading
import time

import pytest

from helpers import run
from model_server import ModelServer
from tiny_vlm import colour_clip
from tiny_vlm import colour_frame as frame
from videoreview.engines.captions.server import ServerEngine, ServerError, ServerModel
from videoreview.engines.captions.vlm import Request
from videoreview.errors import Cancelled
from videoreview.models.servers import Server, add_server, servers


@pytest.fixture(params=["vllm", "ollama"])
def loopback(request):
    server = ModelServer(request.param)
    yield server
    server.close()


def model(server: ModelServer, **settings) -> ServerModel:
    return ServerModel(Server("box", server.url, "colours", **settings))


def ask(colours, text="Describe each frame.") -> Request:
    return Request([frame(c) for c in colours], text, 64)


def test_replies_come_back_in_order_several_in_flight(loopback):
    loopback.script = [("slow", 0.3)] * 6
    replies = model(loopback, concurrency=3).generate([ask([c]) for c in ("red", "blue", "green") * 2])
    assert replies == [f"<Frame 1>: a {c} frame." for c in ("red", "blue", "green") * 2]
    assert loopback.most_in_flight == 3
    sent = loopback.requests[0]["body"]
    assert sent["model"] == "colours" and sent["temperature"] == 0 and sent["max_tokens"] == 64
    assert sent["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/jpeg;base64,")


def test_busy_and_failing_servers_are_retried_with_backoff(loopback, monkeypatch):
    from videoreview.engines.captions import server

    monkeypatch.setattr(server, "BACKOFF", 0.1)  # the same doubling waits, a fifth as long (0.5 s in use)
    loopback.script = [("status", 429, {"error": "busy"}, {"Retry-After": "0"}), ("status", 503, {"error": "x"}),
                       ("drop",)]
    started = time.monotonic()
    assert model(loopback).generate([ask(["red"])]) == ["<Frame 1>: a red frame."]
    backed_off = server.BACKOFF + 2 * server.BACKOFF  # 503 and drop backed off
    assert len(loopback.requests) == 4 and time.monotonic() - started >= backed_off


@pytest.mark.parametrize("step, words", [
    (("status", 404, {"error": {"message": "model 'x' not found"}}), "not found (404: model 'x' not found)"),
    (("malformed", b"{\"choices\": [}"), "a reply that is not a chat completion"),
    (("malformed", b"{\"choices\": []}"), "a reply that is not a chat completion"),
    (("status", 400, {"error": {"message": "too many images"}}), "the server answered 400: too many images"),
])
def test_failures_are_one_line_naming_the_server(loopback, step, words):
    loopback.script = [step]
    with pytest.raises(ServerError) as error:
        model(loopback).generate([ask(["red"])])
    assert str(error.value).startswith(f"box ({loopback.url}): ") and words in str(error.value)
    assert "\n" not in str(error.value)


def test_the_key_is_sent_from_the_environment_and_never_shown(monkeypatch):
    server = ModelServer(key="s3cret-key")
    try:
        monkeypatch.setenv("BOX_KEY", "s3cret-key")
        assert model(server, api_key_env="BOX_KEY").generate([ask(["blue"])]) == ["<Frame 1>: a blue frame."]
        assert server.requests[-1]["headers"]["Authorization"] == "Bearer s3cret-key"
        monkeypatch.setenv("BOX_KEY", "wrong")
        with pytest.raises(ServerError) as error:
            model(server, api_key_env="BOX_KEY").generate([ask(["blue"])])
        assert "refused the key (401: invalid api key)" in str(error.value) and "BOX_KEY" in str(error.value)
        assert "wrong" not in str(error.value) and "s3cret" not in str(error.value)
    finally:
        server.close()


def test_no_server_there_and_no_reply_in_time(loopback):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ServerError, match="connection refused"):
        ServerModel(Server("gone", f"http://127.0.0.1:{port}/v1", "colours")).generate([ask(["red"])])
    loopback.script = [("slow", 2.0)]
    with pytest.raises(ServerError, match="no reply within 0.5 s"):
        model(loopback, timeout=0.5).generate([ask(["red"])])


def test_cancel_stops_sending_at_once(loopback):
    loopback.script = [("slow", 0.5)] * 20
    client = model(loopback, concurrency=2)
    threading.Timer(0.2, client.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        client.generate([ask(["red"]) for _ in range(20)])
    assert time.monotonic() - started < 1.5 and len(loopback.requests) <= 4


def test_the_engine_captions_windows_and_boundaries_through_the_server(loopback, fresh_home):
    add_server(Server("box", loopback.url, "colours", concurrency=2))
    engine = ServerEngine("box")
    assert (engine.name, engine.version) == ("server:box", "1-colours")
    windows = [([frame("red"), frame("blue")], None), ([frame("green")], None)]
    assert engine.caption_windows(windows) == [["a red frame.", "a blue frame."], ["a green frame."]]
    assert engine.caption_boundary([frame("red")], frame("blue"), [frame("blue")]) == ("the frame", "red", "blue")
    assert engine.progression("a red frame.", "a blue frame.") == "A"


def test_servers_are_added_listed_and_refused_in_one_line(loopback, fresh_home):
    proc = run("models", "server", "add", "box", loopback.url, "--model", "colours", "--api-key-env", "BOX_KEY")
    assert proc.returncode == 0, proc.stderr
    assert servers()["box"] == Server("box", loopback.url, "colours", api_key_env="BOX_KEY")
    listed = run("models", "server", "list")
    assert "box" in listed.stdout and loopback.url in listed.stdout and "BOX_KEY" in listed.stdout
    for args, words in ((("add", "x", "ftp://host/v1", "--model", "m"), "not an http(s) URL"),
                        (("add", "bad name", loopback.url, "--model", "m"), "a server name is"),
                        (("remove", "nope"), "no model server of this name")):
        proc = run("models", "server", *args)
        assert proc.returncode == 1 and words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert run("models", "server", "remove", "box").returncode == 0 and servers() == {}


def test_analyze_captions_a_clip_through_the_server(loopback, fresh_home, tmp_path):
    add_server(Server("box", loopback.url, "colours"))
    clip = colour_clip(tmp_path / "colours.mp4")
    out = tmp_path / "a.json"
    proc = run("analyze", "-q", clip, "-o", out, "--engines", "captions=server:box,faces=none,speech=none,"
               "screen-text=none,boundaries=fake")
    assert proc.returncode == 0, proc.stderr
    from videoreview.records import Analysis

    analysis = Analysis.load(out)
    assert analysis.engines["captions"] == "server:box@1-colours"
    texts = [c.text for c in sorted(analysis.captions, key=lambda c: c.time)]
    assert texts == ["a red frame."] * 3 + ["a blue frame."] * 3 + ["a green frame."] * 3
    assert analysis.boundaries and all(b.caption is not None for b in analysis.boundaries)


def test_a_failing_server_falls_back_to_the_builtin_captions_and_says_so(fresh_home, tmp_path, monkeypatch):
    server = ModelServer(key="right")
    try:
        monkeypatch.setenv("BOX_KEY", "wrong")
        add_server(Server("box", server.url, "colours", api_key_env="BOX_KEY"))
        clip = colour_clip(tmp_path / "colours.mp4", seconds=1)
        args = ("analyze", "-q", clip, "-o", tmp_path / "a.json", "--engines",
                "captions=server:box,faces=none,speech=none,screen-text=none,boundaries=fake")
        proc = run(*args)
        assert proc.returncode == 0, proc.stderr
        notices = [line for line in proc.stderr.splitlines() if line.startswith("videoreview: notice:")]
        assert len(notices) == 1 and "refused the key (401" in notices[0] and "Instead: Captions: builtin" in notices[0]
        from videoreview.records import Analysis

        assert Analysis.load(tmp_path / "a.json").engines["captions"].startswith("builtin@")
        # Not cached: with the right key the server captions the clip.
        monkeypatch.setenv("BOX_KEY", "right")
        assert run(*args).returncode == 0
        analysis = Analysis.load(tmp_path / "a.json")
        assert analysis.engines["captions"] == "server:box@1-colours"
        assert [c.text for c in sorted(analysis.captions, key=lambda c: c.time)] == \
            ["a red frame.", "a blue frame.", "a green frame."]
    finally:
        server.close()


def test_a_server_is_chosen_for_captions_summaries_and_scoring(loopback, fresh_home):
    add_server(Server("box", loopback.url, "colours"))
    assert run("models", "use", "server:box", "--for", "captions", "--for", "summaries", "--for",
               "scoring").returncode == 0
    from videoreview.choices import choose

    assert choose().names["captions"] == "server:box" and choose().analysis_engines()["captions"] == "server:box"
    assert choose().names["scoring"] == "server:box"
    proc = run("models", "use", "server:nope", "--for", "captions")
    assert proc.returncode == 1 and "no such model server" in proc.stderr, proc.stderr
