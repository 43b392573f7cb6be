"""The library: every analysed video catalogued (SQLite) and searchable by text, down to
the moment (FTS5 + FAISS vectors of the same text units, fused by reciprocal rank)."""
