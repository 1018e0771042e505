-- 0003: pins (issue 16). A pin is a fact the user pinned to a session; the
-- loop sends the session's pins verbatim after every summary. Editing one
-- rewrites its text; removing one stamps removed_at (never deleted).

CREATE TABLE pins (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    text        TEXT NOT NULL,
    message_id  TEXT NOT NULL DEFAULT '',    -- the message it was taken from
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    removed_at  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX pins_session ON pins (session_id, id);
