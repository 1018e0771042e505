package storage

// rewind.go: what checkpoints need from the database — marking the
// messages a rewind takes back (never deleting them), clearing the mark on
// redo, the record of each restore, the snapshot ids the database still
// names (the snapshot store keeps those), and forking a session.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

const rewindColumns = `id, session_id, kind, mode, message_id, redoes, target, before_snap,
	after_snap, redone_at, created_at`

func scanRewind(r rowScanner) (*message.Rewind, error) {
	var rw message.Rewind
	var redone, created int64
	if err := r.Scan(&rw.ID, &rw.SessionID, &rw.Kind, &rw.Mode, &rw.MessageID, &rw.Redoes, &rw.Target,
		&rw.Before, &rw.After, &redone, &created); err != nil {
		return nil, err
	}
	rw.RedoneAt, rw.CreatedAt = fromUnix(redone), fromUnix(created)
	return &rw, nil
}

// AddRewind records a rewind and, unless its mode is code only, marks with
// its id every message of its session from rw.MessageID on that no earlier
// rewind marked. It fills rw.ID and rw.CreatedAt and returns the ids of the
// messages marked.
func (s *Store) AddRewind(ctx context.Context, rw *message.Rewind) ([]string, error) {
	if rw.ID == "" {
		rw.ID = message.NewID()
	}
	rw.CreatedAt = now()
	op := "rewind session " + rw.SessionID
	if err := s.writable(op); err != nil {
		return nil, err
	}
	var marked []string
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		if err := insertRewind(ctx, tx, rw); err != nil {
			return err
		}
		if rw.Mode == message.RewindCode {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `UPDATE messages SET rewind_id = ?
			WHERE session_id = ? AND id >= ? AND rewind_id = '' RETURNING id`, rw.ID, rw.SessionID, rw.MessageID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			marked = append(marked, id)
		}
		return rows.Err()
	})
	return marked, err
}

func insertRewind(ctx context.Context, tx execer, rw *message.Rewind) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO rewinds (`+rewindColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rw.ID, rw.SessionID, rw.Kind, rw.Mode, rw.MessageID,
		rw.Redoes, rw.Target, rw.Before, rw.After, toUnix(rw.RedoneAt), toUnix(rw.CreatedAt))
	return err
}

// AddRedo records redo, which reapplies the rewind redo.Redoes: that
// rewind's marks are cleared and it is stamped redone, in one transaction.
func (s *Store) AddRedo(ctx context.Context, redo *message.Rewind) error {
	if redo.ID == "" {
		redo.ID = message.NewID()
	}
	redo.CreatedAt = now()
	op := "redo in session " + redo.SessionID
	if err := s.writable(op); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) error {
		if err := insertRewind(ctx, tx, redo); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET rewind_id = '' WHERE rewind_id = ?`, redo.Redoes); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE rewinds SET redone_at = ? WHERE id = ?`, toUnix(redo.CreatedAt), redo.Redoes)
		return err
	})
}

// ListRewinds returns a session's rewinds and redos, oldest first.
func (s *Store) ListRewinds(ctx context.Context, sessionID string) ([]message.Rewind, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+rewindColumns+` FROM rewinds WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, s.fail("list rewinds of session "+sessionID, err)
	}
	defer rows.Close()
	var list []message.Rewind
	for rows.Next() {
		rw, err := scanRewind(rows)
		if err != nil {
			return nil, s.fail("list rewinds of session "+sessionID, err)
		}
		list = append(list, *rw)
	}
	return list, rows.Err()
}

// SnapshotIDs returns every snapshot id the database names — by a patch
// part or a rewind — in any session: the keep set of the snapshot store's
// cleanup.
func (s *Store) SnapshotIDs(ctx context.Context) (map[string]bool, error) {
	op := "list snapshot ids"
	ids := map[string]bool{}
	add := func(v string) {
		if v != "" {
			ids[v] = true
		}
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT state FROM parts WHERE type = ?`, string(message.PartPatch))
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var state []byte
		if err := rows.Scan(&state); err != nil {
			return nil, s.fail(op, err)
		}
		var st partState
		if json.Unmarshal(state, &st) == nil && st.Patch != nil {
			add(st.Patch.Before)
			add(st.Patch.After)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	rw, err := s.rdb.QueryContext(ctx, `SELECT target, before_snap, after_snap FROM rewinds`)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rw.Close()
	for rw.Next() {
		var a, b, c string
		if err := rw.Scan(&a, &b, &c); err != nil {
			return nil, s.fail(op, err)
		}
		add(a)
		add(b)
		add(c)
	}
	return ids, rw.Err()
}

// ForkSession copies session srcID into a new session — same directory,
// model and title (marked as a fork) — with its messages up to and
// including atMessageID ("" for all of them) and their parts, under new
// ids. Rewound messages are not copied; ids that parts name (a summary, a
// kept tail) follow the copy. Usage starts at zero: the fork made no call.
// The copy is in the history index, so search and recall find it.
func (s *Store) ForkSession(ctx context.Context, srcID, atMessageID string) (*message.Session, error) {
	op := "fork session " + srcID
	if err := s.writable(op); err != nil {
		return nil, err
	}
	src, err := s.GetSession(ctx, srcID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	history, err := s.LoadHistory(ctx, src.ID)
	if err != nil {
		return nil, err
	}
	if atMessageID != "" {
		found := false
		for _, e := range history {
			if e.Message.ID == atMessageID {
				found = !e.Message.Rewound()
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: message %s is not in the session's conversation: %w", op, atMessageID, ErrNotFound)
		}
	}
	title := strings.TrimSpace(src.Title)
	if title == "" {
		title = "fork"
	}
	fork := &message.Session{ID: message.NewID(), Title: "Fork of " + title, Model: src.Model, Dir: src.Dir}
	fork.CreatedAt = now()
	fork.UpdatedAt = fork.CreatedAt

	// New ids in the same order, so that comparisons of ids (a kept tail
	// is "every message from TailFrom on") hold in the copy.
	var copied []message.Entry
	newID := map[string]string{}
	for _, e := range history {
		if e.Message.Rewound() {
			continue
		}
		newID[e.Message.ID] = message.NewID()
		copied = append(copied, e)
		if e.Message.ID == atMessageID {
			break
		}
	}
	mapID := func(old string) string {
		if old == "" {
			return ""
		}
		if id, ok := newID[old]; ok {
			return id
		}
		// Not copied (rewound): the first copied message after it.
		for _, e := range copied {
			if e.Message.ID > old {
				return newID[e.Message.ID]
			}
		}
		return ""
	}
	// The copy is indexed like any session's history (search.go): what
	// the parts say is read, saved outputs included, before the write lock
	// is taken.
	docs := map[string]string{}
	for _, e := range copied {
		for i := range e.Parts {
			if p := &e.Parts[i]; indexed(p) {
				docs[p.ID] = indexText(p, true)
			}
		}
	}
	err = s.inTx(ctx, op, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (`+sessionInsertColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, NULL)`,
			fork.ID, fork.Title, fork.Model, fork.Dir, toUnix(fork.CreatedAt), toUnix(fork.UpdatedAt)); err != nil {
			return err
		}
		for _, e := range copied {
			m := e.Message
			m.ID, m.SessionID, m.ParentID, m.RewindID = newID[m.ID], fork.ID, mapID(m.ParentID), ""
			if _, err := tx.ExecContext(ctx, `INSERT INTO messages (`+messageColumns+`)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, messageArgs(&m)...); err != nil {
				return err
			}
			for _, p := range e.Parts {
				doc, index := docs[p.ID]
				p.ID, p.SessionID, p.MessageID = message.NewID(), fork.ID, m.ID
				if c := p.Compaction; c != nil {
					cc := *c
					cc.SummaryID, cc.TailFrom, cc.HeadUpTo = mapID(c.SummaryID), mapID(c.TailFrom), mapID(c.HeadUpTo)
					p.Compaction = &cc
				}
				state, err := encodeState(&p)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO parts (`+partColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					p.ID, p.SessionID, p.MessageID, string(p.Type), state, toUnix(p.CreatedAt), toUnix(p.UpdatedAt)); err != nil {
					return err
				}
				if index {
					if err := indexPart(ctx, tx, p.ID, doc); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.publishSession(fork)
	return fork, nil
}
