"""``python -m quick_backoff ARGS`` runs ``python -m videoreview ARGS`` with huggingface_hub's
waits between retries cut to 10 ms: the same requests and the same number of tries, but a
hub that cannot be reached is given up on at once instead of after 23 s (1, 2, 4, 8 and
8 s of backoff, which no environment variable or setting shortens). For the tests of
``videoreview models`` against closed ports and dropped connections (test_models_pull.py)."""

import runpy

from huggingface_hub.utils import _http

WAIT_S = 0.01

for backoff in (_http.http_backoff, _http.http_stream_backoff.__wrapped__):
    backoff.__kwdefaults__.update(base_wait_time=WAIT_S, max_wait_time=WAIT_S)

runpy.run_module("videoreview", run_name="__main__", alter_sys=True)
