package storage

// windowread.go: reading a window's rows into its entries as they come
// (issue 36: a resumed `agent run -c` costs what it sends). Window.Load
// reads the messages from a point on and their parts; a resumed run's
// peak memory is mostly what that read allocates, so it allocates the
// entries once, at their size (counted first, in the same snapshot),
// scans each message into its entry, puts every part into one array cut
// into the entries' slices, and decodes each part's state from the row's
// own buffer as it is read — no list of messages, parts or states copied
// under their messages afterwards. The result equals what LoadHistory
// gives for the same messages (TestWindowLoadsFromWhereTheSkeletonSays,
// TestWindowLoadAllocatesWhatItReturns holds what it allocates).

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
)

// readWindow returns the messages of a session from id from on ("" from
// the start) with all their parts, in LoadHistory's order, with room for
// windowRoom more messages; nil when there are none. tx is a read
// transaction: the counts and the rows are one snapshot. deltas are the
// session's unfinished streams (sessionDeltas).
func readWindow(ctx context.Context, tx *sql.Tx, sessionID, from string, deltas map[string]string) ([]Entry, error) {
	var nMsgs, nParts int
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM messages WHERE session_id = ?1 AND id >= ?2),
		(SELECT count(*) FROM parts WHERE message_id IN (SELECT id FROM messages WHERE session_id = ?1 AND id >= ?2))`,
		sessionID, from).Scan(&nMsgs, &nParts); err != nil {
		return nil, err
	}
	if nMsgs == 0 {
		return nil, nil
	}
	entries, err := readWindowMessages(ctx, tx, sessionID, from, nMsgs+windowRoom)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	if err := readWindowParts(ctx, tx, sessionID, from, entries, nParts, deltas); err != nil {
		return nil, err
	}
	return entries, nil
}

// readWindowMessages scans the window's messages into entries of capacity
// n (the count; more rows only grow it).
func readWindowMessages(ctx context.Context, tx *sql.Tx, sessionID, from string, n int) ([]Entry, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? AND id >= ? ORDER BY id`, sessionID, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	entries := make([]Entry, 0, n)
	for rows.Next() {
		entries = append(entries, Entry{})
		if err := scanMessageInto(rows, &entries[len(entries)-1].Message); err != nil {
			return nil, err
		}
	}
	return entries, rows.Err()
}

// readWindowParts reads the parts of entries' messages (ordered by id, as
// the parts are by message) into one array of capacity n, decoding each
// state as its row is read, adds the flushed text of unfinished streams
// (deltas),
// and gives each entry its run of the array (nil when it has none; its
// capacity its length, so that an append copies).
func readWindowParts(ctx context.Context, tx *sql.Tx, sessionID, from string, entries []Entry, n int, deltas map[string]string) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+partColumns+` FROM parts WHERE message_id IN
		(SELECT id FROM messages WHERE session_id = ? AND id >= ?) ORDER BY message_id, id`, sessionID, from)
	if err != nil {
		return err
	}
	defer rows.Close()
	all := make([]message.Part, 0, n)
	owner := make([]int32, 0, n) // the entry each part goes under
	at := 0
	var state sql.RawBytes
	for rows.Next() {
		var p message.Part
		var created, updated int64
		if err := rows.Scan(&p.ID, &p.SessionID, &p.MessageID, &p.Type, &state, &created, &updated); err != nil {
			return err
		}
		for at < len(entries) && entries[at].Message.ID < p.MessageID {
			at++
		}
		if at == len(entries) || entries[at].Message.ID != p.MessageID {
			continue // not a message of the window (LoadHistory drops it too)
		}
		p.CreatedAt, p.UpdatedAt = fromUnix(created), fromUnix(updated)
		if err := decodeState(&p, state); err != nil {
			return fmt.Errorf("decode parts: %w", err)
		}
		if d, ok := deltas[p.ID]; ok {
			p.Text += d
		}
		all = append(all, p)
		owner = append(owner, int32(at))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && owner[hi] == owner[lo] {
			hi++
		}
		entries[owner[lo]].Parts = all[lo:hi:hi]
		lo = hi
	}
	return nil
}

// windowRoom is how many messages past its end a window's array has room
// for: a turn's user message and the answers of its first steps are
// appended to it without copying it.
const windowRoom = 16
