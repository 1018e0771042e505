package storage

// windowread.go: reading a window's rows into its entries as they come
// (issue 36: a resumed `agent run -c` costs what it sends). Window.Load
// reads the messages from a point on and their parts; a resumed run's
// peak memory is mostly what that read allocates, so it allocates the
// entries once, at their size (counted first, in the same snapshot),
// reads the rows through the driver (rawrows.go: one reused row of
// cells, no database/sql Scan), puts each message into its entry and
// the parts into arrays allocated as they fill, at the rate of parts a
// message so far (partChunks; not counted first), cut into the
// entries' slices, and has the
// parts' states decoded on a second goroutine while SQLite steps to the
// next rows (statepipe.go) — no list of messages, parts or states copied
// under their messages afterwards. The result equals what LoadHistory
// gives for the same messages (TestWindowLoadsFromWhereTheSkeletonSays,
// TestWindowLoadAllocatesWhatItReturns holds what it allocates).

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/ctxloop/agent/internal/message"
)

// readWindow returns the messages of a session from id from on ("" from
// the start) with all their parts, in LoadHistory's order, with room for
// windowRoom more messages; nil when there are none. tx is a read
// transaction of conn: the counts and the rows are one snapshot. deltas are the
// session's unfinished streams (sessionDeltas).
func readWindow(ctx context.Context, conn *sql.Conn, tx *sql.Tx, sessionID, from string, deltas map[string]string) ([]Entry, error) {
	var nMsgs int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE session_id = ? AND id >= ?`,
		sessionID, from).Scan(&nMsgs); err != nil {
		return nil, err
	}
	if nMsgs == 0 {
		return nil, nil
	}
	entries, err := readWindowMessages(ctx, conn, sessionID, from, nMsgs+windowRoom)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	if err := readWindowParts(ctx, conn, sessionID, from, entries, partsPerMessage*len(entries), deltas); err != nil {
		return nil, err
	}
	return entries, nil
}

// readWindowMessages reads the window's messages into entries of
// capacity n (the count; more rows only grow it), through the driver
// (rawrows.go).
func readWindowMessages(ctx context.Context, conn *sql.Conn, sessionID, from string, n int) ([]Entry, error) {
	entries := make([]Entry, 0, n)
	cells := rawCells{cols: messageColumnNames()}
	err := rawQuery(ctx, conn, `SELECT `+windowMessageColumns+` FROM messages
		WHERE session_id = ? AND id >= ? ORDER BY id`, []any{sessionID, from}, func(row []driver.Value) error {
		entries = append(entries, Entry{})
		cells.row = row
		m := &entries[len(entries)-1].Message
		messageFromCells(&cells, m)
		m.SessionID = sessionID
		return cells.err
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// windowMessageColumns and windowPartColumns are messageColumns and
// partColumns without session_id: the window's rows are the session's
// (its messages by the query, its parts by their messages), so the
// column is not read again for each of them — 1,000 cells fewer for a
// 10,000-part session's window, each a driver call and a string.
const (
	windowMessageColumns = `id, role, parent_id, summary, synthetic, model,
	finish_reason, error, input_tokens, output_tokens, reasoning_tokens,
	cached_input_tokens, cache_write_tokens, cost_usd, created_at, updated_at, finished_at, rewind_id`
	windowPartColumns = `id, message_id, type, state, created_at, updated_at`
)

// messageFromCells sets m but its SessionID from a row of
// windowMessageColumns; a cell of the wrong type leaves its error in c.
func messageFromCells(c *rawCells, m *message.Message) {
	m.ID, m.Role, m.ParentID = c.str(0), message.Role(c.str(1)), c.str(2)
	m.Summary, m.Synthetic = c.int(3) != 0, c.int(4) != 0
	m.Model, m.FinishReason, m.Error = c.str(5), c.str(6), c.str(7)
	m.Usage.Input, m.Usage.Output, m.Usage.Reasoning = c.int(8), c.int(9), c.int(10)
	m.Usage.CachedInput, m.Usage.CacheWrite, m.CostUSD = c.int(11), c.int(12), c.float(13)
	m.CreatedAt, m.UpdatedAt, m.FinishedAt = fromUnix(c.int(14)), fromUnix(c.int(15)), fromUnix(c.int(16))
	m.RewindID = c.str(17)
}

// readWindowParts reads the parts of entries' messages (ordered by id, as
// the parts are by message) through the driver into arrays allocated
// once each (partChunks: the first of capacity n, an estimate), decoding
// each state as its row is read (on a second goroutine: statepipe.go),
// adds the flushed text of unfinished streams (deltas), and gives each
// entry its run of an array (nil when it has none; its capacity its
// length, so that an append copies; a run that two arrays share is
// copied into one).
func readWindowParts(ctx context.Context, conn *sql.Conn, sessionID, from string, entries []Entry, n int, deltas map[string]string) error {
	chunks := partChunks{next: n, messages: len(entries)}
	owner := make([]int32, 0, n) // the entry each part goes under, in the rows' order
	at := 0
	cells := rawCells{cols: partColumnNames()}
	pipe := newStatePipe(deltas)
	err := rawQuery(ctx, conn, `SELECT `+windowPartColumns+` FROM parts WHERE message_id IN
		(SELECT id FROM messages WHERE session_id = ? AND id >= ?) ORDER BY message_id, id`, []any{sessionID, from}, func(row []driver.Value) error {
		cells.row = row
		msg := cells.str(1)
		for at < len(entries) && entries[at].Message.ID < msg {
			at++
		}
		if at == len(entries) || entries[at].Message.ID != msg {
			return cells.err // not a message of the window (LoadHistory drops it too)
		}
		p := message.Part{ID: cells.str(0), SessionID: sessionID, MessageID: entries[at].Message.ID,
			Type: message.PartType(cells.str(2)), CreatedAt: fromUnix(cells.int(4)), UpdatedAt: fromUnix(cells.int(5))}
		state := cellBytes(row[3])
		if state == nil && cells.err == nil {
			cells.str(3) // a cell neither text nor blob: its error
		}
		if cells.err != nil {
			return cells.err
		}
		pipe.add(chunks.add(p, at), state)
		owner = append(owner, int32(at))
		return nil
	})
	if perr := pipe.wait(); err == nil && perr != nil {
		err = fmt.Errorf("decode parts: %w", perr)
	}
	if err != nil {
		return err
	}
	chunks.full = append(chunks.full, chunks.cur)
	var split []int32 // the entries whose parts span arrays
	i := 0            // owner's index of the array's first part
	for _, all := range chunks.full {
		own := owner[i : i+len(all)]
		for lo := 0; lo < len(all); {
			hi := lo + 1
			for hi < len(all) && own[hi] == own[lo] {
				hi++
			}
			if e := &entries[own[lo]]; e.Parts == nil {
				e.Parts = all[lo:hi:hi]
			} else {
				// Begun in the array before: gathered into an array of
				// its own, which append grows geometrically (a message
				// over many arrays costs what its parts do: review10),
				// clipped to its length below so that an append to it
				// copies (review9).
				if len(split) == 0 || split[len(split)-1] != own[lo] {
					split = append(split, own[lo])
				}
				e.Parts = append(e.Parts, all[lo:hi]...)
			}
			lo = hi
		}
		i += len(all)
	}
	for _, at := range split {
		entries[at].Parts = slices.Clip(entries[at].Parts)
	}
	return nil
}

// partChunks holds a window's parts in arrays that never move once
// allocated (the pipe decodes into them while rows are read): each one
// is filled to its capacity, then the next is allocated for what the
// messages left are expected to hold at the rate of the ones read. So
// the window's parts need no count beforehand (a second walk of the
// parts' index, a quarter of the messages' read) and few are left over.
type partChunks struct {
	full     [][]message.Part // the arrays filled
	cur      []message.Part
	next     int // the next array's capacity
	messages int // the window's messages
	parts    int // parts added
}

// add appends p, a part of entry at, and returns where it lies.
func (c *partChunks) add(p message.Part, at int) *message.Part {
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.full = append(c.full, c.cur)
		}
		size := c.next
		if c.parts > 0 { // at the rate so far, for the messages left and this one, a sixteenth more
			// The rate counts the message being read (at+1 messages
			// hold the parts so far), and is bounded by maxPartsPerMessage:
			// one long first message does not size the rest.
			left := c.messages - at
			size = min(c.parts*left/(at+1), maxPartsPerMessage*left)
			size += size / 16
		}
		c.cur = make([]message.Part, 0, max(size, 16))
	}
	c.cur = append(c.cur, p)
	c.parts++
	return &c.cur[len(c.cur)-1]
}

// cellBytes returns a TEXT or BLOB cell's bytes without copying them (nil
// for another type): the driver's string is a fresh copy of the cell that
// only this row holds, read here and dropped.
func cellBytes(v driver.Value) []byte {
	switch v := v.(type) {
	case string:
		if v == "" {
			return []byte{}
		}
		return unsafe.Slice(unsafe.StringData(v), len(v))
	case []byte:
		if v == nil {
			return []byte{}
		}
		return v
	}
	return nil
}

// messageColumnNames and partColumnNames are windowMessageColumns and
// windowPartColumns as lists, for the errors of a row read through the
// driver.
var (
	messageColumnNames = sync.OnceValue(func() []string { return columnNames(windowMessageColumns) })
	partColumnNames    = sync.OnceValue(func() []string { return columnNames(windowPartColumns) })
)

func columnNames(cols string) []string {
	return strings.Fields(strings.ReplaceAll(cols, ",", " "))
}

// partsPerMessage is the first guess of a window's parts a message
// (partChunks): every message has one at least (a question one, an
// answer two to six); the rate read decides the rest.
const partsPerMessage = 3

// maxPartsPerMessage bounds the rate partChunks sizes its next array by
// (a message may hold more: the array after that one is sized again).
const maxPartsPerMessage = 16

// windowRoom is how many messages past its end a window's array has room
// for: a turn's user message and the answers of its first steps are
// appended to it without copying it.
const windowRoom = 16
