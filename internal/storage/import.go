package storage

import (
	"context"
	"database/sql"

	"github.com/ctxloop/agent/internal/message"
)

// ImportHistory appends whole messages, with their parts, to a session in
// one transaction: a large history written at once (benchmarks build
// 10,000-part sessions with it). It fills empty IDs and times as
// CreateMessage and UpsertPart do, indexes what they would index, and
// publishes no events.
func (s *Store) ImportHistory(ctx context.Context, sessionID string, entries []Entry) error {
	op := "import history into session " + sessionID
	if err := s.writable(op); err != nil {
		return err
	}
	ts := now()
	return s.inTx(ctx, op, func(tx *sql.Tx) error {
		if err := requireSession(ctx, tx, sessionID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, toUnix(ts), sessionID); err != nil {
			return err
		}
		insertMsg, err := tx.PrepareContext(ctx, `INSERT INTO messages (`+messageColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insertMsg.Close()
		insertPart := tx.StmtContext(ctx, s.upsertPartStmt)
		for i := range entries {
			m := &entries[i].Message
			m.SessionID = sessionID
			stampMessage(m, ts)
			if _, err := insertMsg.ExecContext(ctx, messageArgs(m)...); err != nil {
				return err
			}
			for j := range entries[i].Parts {
				p := &entries[i].Parts[j]
				p.SessionID, p.MessageID = sessionID, m.ID
				if p.ID == "" {
					p.ID = message.NewID()
				}
				if p.CreatedAt.IsZero() {
					p.CreatedAt = ts
				}
				p.UpdatedAt = ts
				state, err := encodeState(p)
				if err != nil {
					return err
				}
				if _, err := insertPart.ExecContext(ctx, p.ID, p.SessionID, p.MessageID, string(p.Type), state, toUnix(p.CreatedAt), toUnix(p.UpdatedAt)); err != nil {
					return err
				}
				if indexed(p) {
					if err := indexPart(ctx, tx, p.ID, indexText(p, true)); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}
