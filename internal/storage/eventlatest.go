package storage

// eventlatest.go: the newest event of one kind in a session's log. What
// Open reads of a long session's log (the system prompt's last count, the
// git status at its start, the tools its last boundary joined) is one
// row; listing every row of the kind and keeping the last read a log that
// grows with every run and step (issue 36 item 1).

import "context"

// LatestEventLogKind returns the newest entry of kind in sessionID's log,
// the last of ListEventLogKind's; ok is false when there is none. The
// session's index is read from its newest row backwards, up to the first
// of the kind.
func (s *Store) LatestEventLogKind(ctx context.Context, sessionID, kind string) (e LogEntry, ok bool, err error) {
	log, err := s.listEventLog(ctx, "latest "+kind+" event of session "+sessionID, `SELECT id, kind, at, data FROM event_log
		WHERE session_id = ? AND kind = ? ORDER BY id DESC LIMIT 1`, sessionID, kind)
	if err != nil || len(log) == 0 {
		return LogEntry{}, false, err
	}
	return log[0], true, nil
}
