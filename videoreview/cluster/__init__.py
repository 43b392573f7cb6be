"""Analysing a library on a Ray cluster (``videoreview library add --cluster ADDRESS``).

Each video is one task for a pool of Ray actors that hold the chosen engines (loaded once
per actor) and run the same ``pipeline.analyze`` as a local run, with their own stage
cache; the machine that asked indexes each Analysis into its own library as it arrives,
with the same code and the same SQLite transactions as a local ``library add``.

    connect.py   reaching a cluster: the address, a one-line refusal, Ray imported only here
    worker.py    the actor (what runs on the workers; imports no Ray)
    driver.py    the asking side: what to send, the pool, retries, indexing in order of completion
    local.py     a loopback-only cluster on this machine (``ray start`` processes, stopped by pid)

Ray is the ``cluster`` extra: the base install never imports it.
"""
