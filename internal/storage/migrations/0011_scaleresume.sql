-- 0011: a session opens by reading the skeleton of its newest
-- compactions only (issue 36, scaleresume; skeleton.go). The compaction
-- parts by message find where the newest ones start and read them
-- without the older ones; the undone ones say whether one before them
-- changes what they say, both from the index alone.
CREATE INDEX IF NOT EXISTS parts_compaction_message ON parts (session_id, message_id) WHERE type = 'compaction';
CREATE INDEX IF NOT EXISTS parts_compaction_undone ON parts (session_id, message_id)
    WHERE type = 'compaction' AND json_extract(state, '$.compaction.undone_at') IS NOT NULL;
