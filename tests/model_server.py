"""A loopback model server speaking the subset of OpenAI's chat completions API the app
uses, with replies shaped like vLLM's and Ollama's, for the model-server engine tests.

By default it answers like a model that sees colours: each image's mean colour is named
(red, green, blue), so a caption, boundary caption or judge reply is right only when the
right images arrived in the right order. ``script`` queues what the next requests get
instead: ("status", code, body[, headers]), ("slow", seconds), ("malformed", bytes),
("drop",) a closed connection.

The vLLM flavour also scores, as vLLM does with ``prompt_logprobs``: a request whose last
message is the assistant's, to be continued, gets every prompt token's log-probability.
Its tokenizer cuts words into pieces of at most 4 letters (the space goes with the first)
and an image is 64 tokens; an answer word the model "sees" (the colour of an image, or a
word of the user's text) gets log P -0.1 per piece, any other -4. ``/tokenize`` counts
a text's tokens.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

COLOURS = {"red": (220, 30, 30), "blue": (30, 30, 220), "green": (30, 200, 30)}


def colour_name(data_url: str) -> str:
    import cv2

    jpeg = np.frombuffer(base64.b64decode(data_url.split(",", 1)[1]), np.uint8)
    mean = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)[..., ::-1].reshape(-1, 3).mean(axis=0)
    return min(COLOURS, key=lambda name: float(np.abs(mean - COLOURS[name]).sum()))


def seeing_reply(content: list[dict]) -> str:
    """What a model that names colours would answer to this user turn."""
    colours = [colour_name(part["image_url"]["url"]) for part in content if part.get("type") == "image_url"]
    text = next(part["text"] for part in content if part.get("type") == "text")
    if "Subject" in text and "Before" in text:  # the GEB+ boundary prompt
        return f"Subject: the frame\nBefore: {colours[0]}\nAfter: {colours[-1]}"
    if not colours:  # a judge's question
        return "A"
    return "\n".join(f"<Frame {i}>: a {c} frame." for i, c in enumerate(colours, start=1))


IMAGE_TOKENS = 64
SEEN, UNSEEN = -0.1, -4.0


def pieces(text: str) -> list[str]:
    """The loopback model's tokens: words (with the space before them) in pieces of 4."""
    return [word[i:i + 4] for word in re.findall(r"\s*\S+", text) for i in range(0, len(word), 4)]


def prompt_log_probs(content: list[dict], answer: str) -> tuple[list[int], list]:
    """prompt_token_ids and prompt_logprobs as vLLM gives them for this user turn followed
    by the assistant's ``answer`` (continued, not closed)."""
    images = [part for part in content if part.get("type") == "image_url"]
    text = next(part["text"] for part in content if part.get("type") == "text")
    seen = {colour_name(part["image_url"]["url"]) for part in images} | set(re.findall(r"[a-z]+", text.lower()))
    template = ["<|im_start|>", "user", "\n"] + ["<|image_pad|>"] * (IMAGE_TOKENS * len(images))
    template += pieces(text) + ["<|im_end|>", "\n", "<|im_start|>", "assistant"]
    answer_pieces = pieces("\n" + answer)  # the first answer token takes the template's newline
    words = iter(re.findall(r"\S+", answer))
    scores, word = [], None
    for piece in answer_pieces:
        if piece[0].isspace() or word is None:
            word = next(words)
        scores.append(SEEN if word in seen else UNSEEN)
    tokens = template + answer_pieces
    ids = list(range(1000, 1000 + len(tokens)))
    entries = [None] + [{str(i): {"logprob": lp, "rank": 1, "decoded_token": t}}
                        for i, t, lp in zip(ids[1:], tokens[1:], [-1.0] * (len(template) - 1) + scores)]
    return ids, entries


class ModelServer:
    def __init__(self, flavour: str = "vllm", key: str | None = None) -> None:
        self.flavour, self.key = flavour, key
        self.script: list[tuple] = []
        self.requests: list[dict] = []  # the bodies received, in order
        self.in_flight = self.most_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                server.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        # shutdown() waits for serve_forever's next poll: every 50 ms, not every 0.5 s
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        body = json.loads(request.rfile.read(int(request.headers["Content-Length"])))
        with self.lock:
            self.requests.append({"body": body, "headers": dict(request.headers)})
            step = self.script.pop(0) if self.script else ("ok",)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            self._answer(request, body, step)
        finally:
            with self.lock:
                self.in_flight -= 1

    def _answer(self, request, body: dict, step: tuple) -> None:
        if request.path == "/tokenize" and self.flavour == "vllm":
            tokens = pieces(body["prompt"])
            return self._send(request, 200, {"count": len(tokens), "max_model_len": 32768, "tokens": []})
        if request.path != "/v1/chat/completions":
            return self._send(request, 404, {"error": {"message": f"no route {request.path}"}})
        if self.key is not None and request.headers.get("Authorization") != f"Bearer {self.key}":
            return self._send(request, 401, {"error": {"message": "invalid api key"}})
        if body.get("model") != "colours":
            return self._send(request, 404, {"error": {"message": f"model '{body.get('model')}' not found"}})
        kind = step[0]
        if kind == "status":
            return self._send(request, step[1], step[2], step[3] if len(step) > 3 else {})
        if kind == "malformed":
            return self._send_raw(request, 200, step[1])
        if kind == "drop":
            request.close_connection = True
            request.connection.close()
            return
        if kind == "slow":
            time.sleep(step[1])
        user = next(m for m in body["messages"] if m["role"] == "user")["content"]
        images = sum(part.get("type") == "image_url" for part in user)
        usage = {"prompt_tokens": 10 + IMAGE_TOKENS * images, "completion_tokens": 5}
        usage["total_tokens"] = usage["prompt_tokens"] + 5
        last = body["messages"][-1]
        scoring = last["role"] == "assistant" and body.get("continue_final_message")
        reply = "" if scoring else seeing_reply(last["content"])
        message = {"role": "assistant", "content": reply}
        if self.flavour == "ollama":  # Ollama's OpenAI endpoint: the same shape, its own fields
            payload = {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                       "system_fingerprint": "fp_ollama",
                       "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage}
        else:  # vLLM's
            payload = {"id": "chatcmpl-abc", "object": "chat.completion", "created": 1, "model": body["model"],
                       "choices": [{"index": 0, "message": {**message, "reasoning_content": None, "tool_calls": []},
                                    "logprobs": None, "finish_reason": "stop", "stop_reason": None}],
                       "usage": usage, "prompt_logprobs": None}
            if scoring and body.get("prompt_logprobs") is not None:
                ids, payload["prompt_logprobs"] = prompt_log_probs(user, last["content"])
                if body.get("return_token_ids"):
                    payload["prompt_token_ids"] = ids
        self._send(request, 200, payload)

    def _send(self, request, code: int, payload, headers: dict | None = None) -> None:
        self._send_raw(request, code, json.dumps(payload).encode("utf-8"), headers)

    @staticmethod
    def _send_raw(request, code: int, data: bytes, headers: dict | None = None) -> None:
        request.send_response(code)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(data)
