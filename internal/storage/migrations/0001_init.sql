-- 0001: sessions, messages, parts, streamed-text deltas, the queue, leases
-- and the event log. Times are Unix nanoseconds (0 = unset).

CREATE TABLE sessions (
    id                  TEXT PRIMARY KEY,
    title               TEXT NOT NULL DEFAULT '',
    model               TEXT NOT NULL DEFAULT '',
    dir                 TEXT NOT NULL DEFAULT '',
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens  INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX sessions_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_dir_updated ON sessions (dir, updated_at DESC, id DESC);

CREATE TABLE messages (
    id                  TEXT PRIMARY KEY,
    session_id          TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role                TEXT NOT NULL,
    parent_id           TEXT NOT NULL DEFAULT '',
    summary             INTEGER NOT NULL DEFAULT 0,
    synthetic           INTEGER NOT NULL DEFAULT 0,
    model               TEXT NOT NULL DEFAULT '',
    finish_reason       TEXT NOT NULL DEFAULT '',
    error               TEXT NOT NULL DEFAULT '',
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens  INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    finished_at         INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX messages_session ON messages (session_id, id);

-- state is the JSON of the part's state fields (text, tool, step, compaction).
CREATE TABLE parts (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    state      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX parts_session ON parts (session_id, id);
CREATE INDEX parts_message ON parts (message_id, id);

-- part_deltas holds the flushed text of a stream that is not finished yet:
-- each flush appends one row with only the new bytes; finishing the stream
-- writes the whole text into the part and deletes its rows. The table is
-- only ever a few pages, so it has no index on part_id: an append then
-- writes one b-tree page (rows go at the end of the rowid b-tree), which
-- matters as every flush is a WAL commit of whole pages.
CREATE TABLE part_deltas (
    id      INTEGER PRIMARY KEY,
    part_id TEXT NOT NULL REFERENCES parts (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    text    TEXT NOT NULL
) STRICT;

CREATE TABLE queue (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    text       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX queue_session ON queue (session_id, position);

-- leases: which process drives a session. token identifies one holder.
CREATE TABLE leases (
    session_id   TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    token        TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    acquired_at  INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
) STRICT;

-- event_log: prunes, compactions and estimate-vs-actual records, for the
-- inspector's timeline. data is JSON.
CREATE TABLE event_log (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    at         INTEGER NOT NULL,
    data       TEXT NOT NULL DEFAULT 'null'
) STRICT;
CREATE INDEX event_log_session ON event_log (session_id, id);
