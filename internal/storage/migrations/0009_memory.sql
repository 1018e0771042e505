-- 0009: memories (issue 34). A memory is a fact kept across sessions, for
-- one project directory (scope = the directory) or for the user (scope =
-- 'user'). A proposed one waits for the user to accept it; a pinned one is
-- sent in every session's system prompt. It records where it came from
-- (session and message, empty when the user added it by hand); it outlives
-- its session, so there is no foreign key. memories_fts indexes the text
-- for memory_search. Every statement may run again (a database set one
-- migration back, as TestForkIndexMigrationIndexesExistingForks does).

CREATE TABLE IF NOT EXISTS memories (
    id          TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,
    text        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'active',  -- 'active' | 'proposed'
    pinned      INTEGER NOT NULL DEFAULT 0,
    session_id  TEXT NOT NULL DEFAULT '',
    message_id  TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS memories_scope ON memories (scope, id);

CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    text,
    content = 'memories',
    content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS memories_index AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER IF NOT EXISTS memories_unindex AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER IF NOT EXISTS memories_reindex AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;
