package storage

// Streamed text. A TextStream keeps the whole text in memory and persists it
// in two ways:
//
//   - while streaming, each flush appends one part_deltas row holding only
//     the bytes since the previous flush, so the bytes written stay linear
//     in the output. A flush happens FlushInterval after the first unflushed
//     delta (a timer, so a stalled stream is persisted too) and whenever the
//     caller calls Flush at a boundary (tool call, cancel);
//   - Finish writes the whole text into the part once and deletes the delta
//     rows in the same transaction.
//
// Readers (ListParts, LoadHistory) see part text + flushed deltas, so a
// kill -9 loses at most FlushInterval of text, and RepairSession folds the
// deltas of an interrupted stream into its part.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// FlushInterval is the longest a streamed delta stays only in memory.
const FlushInterval = 100 * time.Millisecond

// TextStream persists the streamed text of one text or reasoning part.
// Append may be called concurrently with Flush; a stream is finished once.
type TextStream struct {
	store *Store

	flushMu sync.Mutex // serialises database writes

	mu      sync.Mutex
	part    message.Part // Text is unused; text holds it
	text    strings.Builder
	flushed int  // bytes of text already in the database
	seq     int  // last delta row written
	armed   bool // the timer will flush
	timer   *time.Timer
	done    bool // finished or closed: no more appends or writes
	final   message.Part
	closed  bool // closed by Store.Close rather than finished
}

// NewTextStream starts streaming into p, a text or reasoning part. A part
// without an ID is created first (UpsertPart); a part with one must be
// stored already, with p.Text its text so far.
func (s *Store) NewTextStream(ctx context.Context, p *message.Part) (*TextStream, error) {
	const op = "start text stream"
	if err := s.writable(op); err != nil {
		return nil, err
	}
	if p.Type != message.PartText && p.Type != message.PartReasoning {
		return nil, fmt.Errorf("%s: part %s is a %s part, not text or reasoning", op, p.ID, p.Type)
	}
	seq := 0
	if p.ID == "" {
		if err := s.UpsertPart(ctx, p); err != nil {
			return nil, err
		}
	} else if err := s.db.QueryRowContext(ctx,
		`SELECT coalesce(max(seq), 0) FROM part_deltas WHERE part_id = ?`, p.ID).Scan(&seq); err != nil {
		return nil, s.fail(op+" on part "+p.ID, err)
	}
	t := &TextStream{store: s, part: *clonePart(p), seq: seq}
	t.text.WriteString(p.Text)
	t.flushed = len(p.Text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("%s on part %s: store is closed", op, p.ID)
	}
	s.streams[t] = struct{}{}
	return t, nil
}

// Append adds streamed text. It publishes an EventPartDelta at once (lossy;
// its Part carries the whole text so far) and buffers the delta for the
// database. Appends after Finish are ignored.
func (t *TextStream) Append(delta string) {
	if delta == "" {
		return
	}
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return
	}
	t.text.WriteString(delta)
	if !t.armed {
		t.armed = true
		if t.timer == nil {
			t.timer = time.AfterFunc(FlushInterval, t.flushOnTimer)
		} else {
			t.timer.Reset(FlushInterval)
		}
	}
	p := t.part
	p.Text = t.text.String()
	t.mu.Unlock()
	t.store.events.PublishLossy(message.Event{
		Type: message.EventPartDelta, SessionID: p.SessionID, Part: &p, Delta: delta,
	})
}

// Text returns the whole text so far.
func (t *TextStream) Text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.text.String()
}

// Part returns the part with the whole text so far.
func (t *TextStream) Part() message.Part {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := *clonePart(&t.part)
	p.Text = t.text.String()
	return p
}

// Flush writes the deltas buffered since the last flush as one delta row.
// Call it at boundaries: before a tool call, on cancel.
func (t *TextStream) Flush(ctx context.Context) error {
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	return t.flushLocked(ctx)
}

func (t *TextStream) flushOnTimer() {
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyTimeout)
	defer cancel()
	if err := t.flushLocked(ctx); err != nil {
		t.store.Publish(message.Event{Type: message.EventError, SessionID: t.part.SessionID, Err: err.Error()})
	}
}

// flushLocked writes the unflushed text; the caller holds flushMu. On error
// the text stays buffered for the next flush.
func (t *TextStream) flushLocked(ctx context.Context) error {
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return nil
	}
	t.armed = false
	if t.timer != nil {
		t.timer.Stop()
	}
	full := t.text.String()
	pending := full[t.flushed:]
	seq := t.seq + 1
	id := t.part.ID
	t.mu.Unlock()
	if pending == "" {
		return nil
	}
	_, err := t.store.db.ExecContext(ctx, `INSERT INTO part_deltas (part_id, seq, text) VALUES (?, ?, ?)`,
		id, seq, pending)
	if err != nil {
		return t.store.fail("flush text of part "+id, err)
	}
	t.mu.Lock()
	t.flushed, t.seq = len(full), seq
	t.mu.Unlock()
	return nil
}

// Finish writes the whole text into the part, deletes its delta rows,
// publishes EventPartUpdated and returns the part. Finishing again returns
// the same part.
func (t *TextStream) Finish(ctx context.Context) (message.Part, error) {
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	t.mu.Lock()
	if t.done {
		final, closed := t.final, t.closed
		t.mu.Unlock()
		if closed {
			return message.Part{}, fmt.Errorf("finish text of part %s: store is closed", t.part.ID)
		}
		return final, nil
	}
	p := *clonePart(&t.part)
	p.Text = t.text.String()
	t.mu.Unlock()
	p.UpdatedAt = now()

	op := "finish text of part " + p.ID
	s := t.store
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return message.Part{}, s.fail(op, err)
	}
	defer tx.Rollback()
	// Delete first, so the pages the deltas free are reused for the text.
	if _, err := tx.ExecContext(ctx, `DELETE FROM part_deltas WHERE part_id = ?`, p.ID); err != nil {
		return message.Part{}, s.fail(op, err)
	}
	if err := writeState(ctx, tx, &p); err != nil {
		return message.Part{}, s.fail(op, err)
	}
	if err := indexIfFinal(ctx, tx, &p); err != nil {
		return message.Part{}, s.fail(op, err)
	}
	if err := tx.Commit(); err != nil {
		return message.Part{}, s.fail(op, err)
	}

	t.mu.Lock()
	t.done, t.final = true, p
	t.flushed = len(p.Text)
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
	s.mu.Lock()
	delete(s.streams, t)
	s.mu.Unlock()
	s.publishPart(&p)
	return p, nil
}

// close flushes what is buffered and stops the stream without finishing
// it; Store.Close calls it.
func (t *TextStream) close(ctx context.Context) error {
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	err := t.flushLocked(ctx)
	t.mu.Lock()
	if !t.done {
		t.done, t.closed = true, true
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
	return err
}
