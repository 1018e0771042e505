-- 0006: subagents (issue 19). A session the task tool started names the
-- session that started it (NULL for a session the user started); lists
-- leave child sessions out, and removing a parent removes its children.

ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions (id) ON DELETE CASCADE;
CREATE INDEX sessions_parent ON sessions (parent_id) WHERE parent_id IS NOT NULL;
