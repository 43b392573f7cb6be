"""On-screen text engines: words written in the picture, with where they are (see protocol.py)."""
