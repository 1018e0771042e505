-- 0010: a session opens by reading what it sends (issue 36, scaleopen).
-- Window.Load finds where to start reading — the summaries, the messages
-- holding compaction parts, the todo_write calls — through these partial
-- indexes, without reading the history; building them is one pass over
-- the tables, once.
CREATE INDEX IF NOT EXISTS messages_summary ON messages (session_id, id) WHERE summary = 1;
CREATE INDEX IF NOT EXISTS parts_compaction ON parts (session_id, id) WHERE type = 'compaction';
CREATE INDEX IF NOT EXISTS parts_todo ON parts (session_id, message_id, id)
    WHERE type = 'tool' AND json_extract(state, '$.tool.name') = 'todo_write';
-- What Open repairs after a crash (repair.go: unfinishedTools,
-- repairMessages) is found the same way, not by decoding every tool
-- part's state and reading every message of the session.
CREATE INDEX IF NOT EXISTS parts_unfinished ON parts (session_id, id)
    WHERE type = 'tool' AND json_extract(state, '$.tool.status') IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS messages_unfinished ON messages (session_id, id) WHERE finished_at = 0;
