-- 0003: steer or queue (issue 17). A queued message steers the running turn
-- (injected at its next step) or waits for the turn to end and starts its
-- own. Rows written before this were all steering.

ALTER TABLE queue ADD COLUMN kind TEXT NOT NULL DEFAULT 'steer';
