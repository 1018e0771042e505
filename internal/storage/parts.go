package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// partState is what the state column holds: the JSON of a part's state
// fields.
type partState struct {
	Text       string                   `json:"text,omitempty"`
	Tool       *message.ToolState       `json:"tool,omitempty"`
	Step       *message.StepState       `json:"step,omitempty"`
	Compaction *message.CompactionState `json:"compaction,omitempty"`
	Patch      *message.PatchState      `json:"patch,omitempty"`
	File       *message.FileState       `json:"file,omitempty"`
}

func encodeState(p *message.Part) (string, error) {
	if p.Tool == nil && p.Step == nil && p.Compaction == nil && p.Patch == nil && p.File == nil {
		// Text alone (a message's text, a streamed answer, a step's
		// start): the same JSON without building encoders for every
		// state type by reflection, which the first part of a process
		// paid before its first request.
		if p.Text == "" {
			return "{}", nil
		}
		text, err := json.Marshal(p.Text)
		if err != nil {
			return "", fmt.Errorf("encode state of part %s: %w", p.ID, err)
		}
		return `{"text":` + string(text) + "}", nil
	}
	b, err := json.Marshal(partState{Text: p.Text, Tool: p.Tool, Step: p.Step, Compaction: p.Compaction, Patch: p.Patch, File: p.File})
	if err != nil {
		return "", fmt.Errorf("encode state of part %s: %w", p.ID, err)
	}
	return string(b), nil
}

func decodeState(p *message.Part, state []byte) error {
	var st partState
	if err := unmarshalState(state, &st); err != nil {
		return fmt.Errorf("decode state of part %s: %w", p.ID, err)
	}
	p.Text, p.Tool, p.Step, p.Compaction, p.Patch, p.File = st.Text, st.Tool, st.Step, st.Compaction, st.Patch, st.File
	return nil
}

const partColumns = `id, session_id, message_id, type, state, created_at, updated_at`

func scanPart(r rowScanner) (*message.Part, error) {
	var p message.Part
	var state []byte
	var created, updated int64
	if err := r.Scan(&p.ID, &p.SessionID, &p.MessageID, &p.Type, &state, &created, &updated); err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt = fromUnix(created), fromUnix(updated)
	if err := decodeState(&p, state); err != nil {
		return nil, err
	}
	return &p, nil
}

const upsertPartSQL = `INSERT INTO parts (` + partColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET type = excluded.type, state = excluded.state,
	updated_at = excluded.updated_at`

// UpsertPart stores a part: inserted when new (ID empty or unknown),
// otherwise its state replaced. It fills ID and CreatedAt when empty and
// sets UpdatedAt to now. While a TextStream is open on a part, only the
// stream should write it.
func (s *Store) UpsertPart(ctx context.Context, p *message.Part) error {
	if err := s.writable("upsert part"); err != nil {
		return err
	}
	if p.SessionID == "" || p.MessageID == "" || p.Type == "" {
		return fmt.Errorf("upsert part %s: session id, message id and type are required", p.ID)
	}
	if p.ID == "" {
		p.ID = message.NewID()
	}
	ts := now()
	if p.CreatedAt.IsZero() {
		p.CreatedAt = ts
	}
	p.UpdatedAt = ts
	state, err := encodeState(p)
	if err != nil {
		return err
	}
	args := []any{p.ID, p.SessionID, p.MessageID, string(p.Type), state, toUnix(p.CreatedAt), toUnix(p.UpdatedAt)}
	if indexed(p) {
		// What the part says is final: index it with the write (search.go).
		// The saved output is read before the write lock is taken.
		doc := indexText(p, true)
		err = s.inTx(ctx, "upsert part "+p.ID, func(tx *sql.Tx) error {
			if _, err := tx.StmtContext(ctx, s.upsertPartStmt).ExecContext(ctx, args...); err != nil {
				return err
			}
			return indexPart(ctx, tx, p.ID, doc)
		})
	} else if _, err = s.upsertPartStmt.ExecContext(ctx, args...); err != nil {
		err = s.fail("upsert part "+p.ID, err)
	}
	if err != nil {
		return err
	}
	s.publishPart(p)
	return nil
}

// ListParts returns a session's parts in order. The text of a streamed
// part that is not finished includes the deltas flushed so far.
func (s *Store) ListParts(ctx context.Context, sessionID string) ([]message.Part, error) {
	op := "list parts of session " + sessionID
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer tx.Rollback()
	parts, err := listParts(ctx, tx, sessionID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return parts, nil
}

// listParts reads a session's parts and their unfinished deltas; q should
// be a transaction so both reads see the same snapshot.
func listParts(ctx context.Context, q querier, sessionID string) ([]message.Part, error) {
	return readParts(ctx, q, sessionID, `SELECT `+partColumns+` FROM parts
		WHERE session_id = ? ORDER BY id`, sessionID)
}

// readParts runs query (selecting partColumns), decodes the parts and adds
// the session's unfinished deltas to their text; q should be a transaction
// so both reads see the same snapshot.
func readParts(ctx context.Context, q querier, sessionID, query string, args ...any) ([]message.Part, error) {
	deltas, err := sessionDeltas(ctx, q, sessionID)
	if err != nil {
		return nil, err
	}
	return readPartsWith(ctx, q, deltas, query, args...)
}

// readPartsWith is readParts with the session's unfinished deltas
// (sessionDeltas) already read, in the same snapshot: a reader that runs
// several queries of parts reads them once.
func readPartsWith(ctx context.Context, q querier, deltas map[string]string, query string, args ...any) ([]message.Part, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var parts []message.Part
	var states [][]byte
	for rows.Next() {
		var p message.Part
		var state []byte
		var created, updated int64
		if err := rows.Scan(&p.ID, &p.SessionID, &p.MessageID, &p.Type, &state, &created, &updated); err != nil {
			return nil, err
		}
		p.CreatedAt, p.UpdatedAt = fromUnix(created), fromUnix(updated)
		parts = append(parts, p)
		states = append(states, state)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := decodeStates(parts, states); err != nil {
		return nil, fmt.Errorf("decode parts: %w", err)
	}
	for i := range parts {
		if d, ok := deltas[parts[i].ID]; ok {
			parts[i].Text += d
		}
	}
	return parts, nil
}

// decodeStates decodes each part's state, on every CPU when there are many:
// JSON decoding is most of the time it takes to load a long session.
func decodeStates(parts []message.Part, states [][]byte) error {
	const perWorker = 512
	workers := min(runtime.GOMAXPROCS(0), (len(parts)+perWorker-1)/perWorker)
	if workers <= 1 {
		for i := range parts {
			if err := decodeState(&parts[i], states[i]); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, workers)
	chunk := (len(parts) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(parts))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if err := decodeState(&parts[i], states[i]); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sessionDeltas returns the flushed text of each unfinished stream of a
// session, by part id.
func sessionDeltas(ctx context.Context, q querier, sessionID string) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT d.part_id, d.text FROM part_deltas d
		JOIN parts p ON p.id = d.part_id WHERE p.session_id = ? ORDER BY d.part_id, d.seq`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var builders map[string]*strings.Builder
	for rows.Next() {
		var id, text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, err
		}
		if builders == nil {
			builders = make(map[string]*strings.Builder)
		}
		b := builders[id]
		if b == nil {
			b = new(strings.Builder)
			builders[id] = b
		}
		b.WriteString(text)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	deltas := make(map[string]string, len(builders))
	for id, b := range builders {
		deltas[id] = b.String()
	}
	return deltas, nil
}

// MarkCompacted sets Tool.CompactedAt on tool parts, in one transaction:
// the prune pass's mark. The outputs stay in the database.
func (s *Store) MarkCompacted(ctx context.Context, partIDs []string, at time.Time) error {
	if at.IsZero() {
		at = now()
	}
	return s.setCompacted(ctx, "mark parts compacted", partIDs, at)
}

// RestoreCompacted clears Tool.CompactedAt on tool parts, in one
// transaction: their outputs are sent again (`agent compact --undo`). The
// event log keeps the record of the prune.
func (s *Store) RestoreCompacted(ctx context.Context, partIDs []string) error {
	return s.setCompacted(ctx, "restore compacted parts", partIDs, time.Time{})
}

func (s *Store) setCompacted(ctx context.Context, op string, partIDs []string, at time.Time) error {
	if err := s.writable(op); err != nil {
		return err
	}
	if len(partIDs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(op, err)
	}
	defer tx.Rollback()
	ts := now()
	marked := make([]*message.Part, 0, len(partIDs))
	for _, id := range partIDs {
		p, err := scanPart(tx.QueryRowContext(ctx, `SELECT `+partColumns+` FROM parts WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s: part %s: %w", op, id, ErrNotFound)
		}
		if err != nil {
			return s.fail(op, err)
		}
		if p.Type != message.PartTool || p.Tool == nil {
			return fmt.Errorf("%s: part %s is a %s part, not a tool call", op, id, p.Type)
		}
		p.Tool.CompactedAt = at
		p.UpdatedAt = ts
		if err := writeState(ctx, tx, p); err != nil {
			return s.fail(op, err)
		}
		marked = append(marked, p)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(op, err)
	}
	for _, p := range marked {
		s.publishPart(p)
	}
	return nil
}

// writeState stores an existing part's state and UpdatedAt.
func writeState(ctx context.Context, db execer, p *message.Part) error {
	state, err := encodeState(p)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `UPDATE parts SET state = ?, updated_at = ? WHERE id = ?`,
		state, toUnix(p.UpdatedAt), p.ID)
	return err
}

// Entry is one message with its parts in order.
type Entry = message.Entry

// LoadHistory returns a session's messages in order, each with its parts in
// order, read from one snapshot.
func (s *Store) LoadHistory(ctx context.Context, sessionID string) ([]Entry, error) {
	op := "load history of session " + sessionID
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer tx.Rollback()
	msgs, err := listMessages(ctx, tx, sessionID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	parts, err := listParts(ctx, tx, sessionID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return joinParts(msgs, parts), nil
}

func (s *Store) publishPart(p *message.Part) {
	s.events.Publish(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: clonePart(p)})
}

// clonePart copies a part deeply enough that the caller may go on changing
// its own copy while subscribers read the event's.
func clonePart(p *message.Part) *message.Part {
	c := *p
	if p.Tool != nil {
		t := *p.Tool
		t.Metadata = maps.Clone(p.Tool.Metadata)
		c.Tool = &t
	}
	if p.Step != nil {
		st := *p.Step
		c.Step = &st
	}
	if p.Compaction != nil {
		cp := *p.Compaction
		c.Compaction = &cp
	}
	if p.File != nil {
		f := *p.File
		c.File = &f
	}
	return &c
}
