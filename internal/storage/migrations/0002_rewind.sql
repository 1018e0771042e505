-- 0002: checkpoints and rewind (issue 13). A rewound message is marked with
-- the rewind that took it back, never deleted; a redo clears the mark.
-- rewinds records each restore of a session — a rewind or the redo of one —
-- with the snapshots it went between, so that a redo can reapply it and
-- the snapshot store's cleanup keeps what the database still names.

ALTER TABLE messages ADD COLUMN rewind_id TEXT NOT NULL DEFAULT '';

CREATE TABLE rewinds (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,               -- rewind | redo
    mode        TEXT NOT NULL,               -- both | code | conversation
    message_id  TEXT NOT NULL DEFAULT '',    -- the first message taken back
    redoes      TEXT NOT NULL DEFAULT '',    -- a redo: the rewind it reapplies
    target      TEXT NOT NULL DEFAULT '',    -- the snapshot restored
    before_snap TEXT NOT NULL DEFAULT '',    -- the tree just before (redo goes back to it)
    after_snap  TEXT NOT NULL DEFAULT '',    -- the tree just after
    redone_at   INTEGER NOT NULL DEFAULT 0,  -- a rewind: when a redo reapplied it
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX rewinds_session ON rewinds (session_id, id);
