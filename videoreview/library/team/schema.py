"""The team catalog's tables, as migrations: the catalog runs those a library lacks, in
order, and records how many in ``schema_version``."""

MIGRATIONS = (
    """
    CREATE TABLE videos (
        id bigserial PRIMARY KEY,
        path text NOT NULL UNIQUE,
        content_hash text,
        size_bytes bigint,
        mtime_ns bigint,
        duration double precision,
        fps double precision,
        width integer,
        height integer,
        status text NOT NULL DEFAULT 'new'
            CHECK (status IN ('new', 'analysing', 'done', 'failed', 'missing')),
        error text,
        added_at double precision NOT NULL,
        analysed_at double precision
    );
    CREATE INDEX videos_hash ON videos (content_hash);
    CREATE TABLE analyses (
        video_id bigint PRIMARY KEY REFERENCES videos (id) ON DELETE CASCADE,
        content_hash text NOT NULL,
        engines text NOT NULL,  -- JSON text, as the local catalog's: both read it the same way
        indexed_at double precision NOT NULL,
        analysis jsonb
    );
    CREATE TABLE identities (
        video_id bigint NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
        pid text NOT NULL,
        name text,
        PRIMARY KEY (video_id, pid)
    );
    CREATE TABLE units (
        id bigserial PRIMARY KEY,
        video_id bigint NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
        kind text NOT NULL,
        start double precision NOT NULL,
        "end" double precision NOT NULL,
        text text NOT NULL,
        people text NOT NULL DEFAULT '',
        embedding vector,
        frame_embedding bytea,
        frame_model text,
        words tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
    );
    CREATE INDEX units_video ON units (video_id);
    CREATE INDEX units_words ON units USING gin (words);
    CREATE INDEX units_frame_model ON units (frame_model) WHERE frame_model IS NOT NULL;
    CREATE TABLE unit_people (
        unit_id bigint NOT NULL REFERENCES units (id) ON DELETE CASCADE,
        video_id bigint NOT NULL,
        pid text NOT NULL,
        PRIMARY KEY (unit_id, pid)
    );
    CREATE INDEX unit_people_pid ON unit_people (video_id, pid);
    CREATE TABLE unit_notes (
        unit_id bigint PRIMARY KEY REFERENCES units (id) ON DELETE CASCADE,
        note_id text NOT NULL,
        frame integer NOT NULL,
        last_frame integer NOT NULL,
        tag text NOT NULL,
        status text NOT NULL,
        author text NOT NULL
    );
    CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
    """,
    # Several reviewers at once: each Analysis written counts a revision (a writer that read
    # an older one merges again), and every version of every note is kept.
    """
    ALTER TABLE analyses ADD COLUMN revision bigint NOT NULL DEFAULT 0;
    CREATE TABLE note_history (
        video_id bigint NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
        note_id text NOT NULL,
        changed text NOT NULL,
        author text NOT NULL,
        note jsonb NOT NULL,
        PRIMARY KEY (video_id, note_id, changed, author)
    );
    """,
    # The text search in a table of its own, as the local catalog's FTS5 table: ranking
    # visits a row per unit found, and a unit's row (its vectors inline) is 12x wider.
    """
    CREATE TABLE unit_words (
        unit_id bigint PRIMARY KEY REFERENCES units (id) ON DELETE CASCADE,
        words tsvector NOT NULL
    );
    INSERT INTO unit_words (unit_id, words) SELECT id, words FROM units;
    CREATE INDEX unit_words_gin ON unit_words USING gin (words);
    ALTER TABLE units DROP COLUMN words;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
