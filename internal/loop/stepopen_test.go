package loop

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// lockedUntilSent is a provider that lets the database be written again
// only once a request has reached it: a step that wrote its assistant
// message before sending would wait on the lock and fail.
type lockedUntilSent struct {
	inner  provider.Provider
	unlock func()
}

func (p *lockedUntilSent) Stream(ctx context.Context, req provider.Request) (provider.Stream, error) {
	st, err := p.inner.Stream(ctx, req)
	p.unlock()
	return st, err
}

// The assistant message and its step-start part are written while the
// request goes out, not before it: with the database locked by another
// connection from the user message on, the request still reaches the
// server, then the writes go through, and the history and the events are
// what they were (the message, its step-start part first, then the text).
func TestStepRequestDoesNotWaitForItsMessageWrite(t *testing.T) {
	var lock struct {
		sync.Mutex
		conn   *sql.Conn
		done   bool
		failed error
	}
	// The user message is written once the request's body is sent
	// (usercommit.go): the lock is let go once it is stored and the lock
	// taken, the request through.
	taken := make(chan struct{})
	var h *harness
	h = newHarnessWith(t, func(o *Options, _ *config.Config) {
		observe := o.Observer
		o.Observer = func(ev message.Event) {
			observe(ev)
			if ev.Type != message.EventMessageUpdated || ev.Message.Role != message.RoleUser {
				return
			}
			lock.Lock()
			defer lock.Unlock()
			if lock.done {
				return
			}
			lock.done = true
			defer close(taken)
			// The user message is stored: hold the database's write lock
			// from another connection until the request is sent.
			db, err := sql.Open("sqlite", h.store.Path())
			if err == nil {
				t.Cleanup(func() { db.Close() })
				if lock.conn, err = db.Conn(context.Background()); err == nil {
					_, err = lock.conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
				}
			}
			lock.failed = err
		}
		o.Provider = &lockedUntilSent{inner: o.Provider, unlock: func() {
			<-taken
			lock.Lock()
			defer lock.Unlock()
			if lock.conn != nil {
				_, _ = lock.conn.ExecContext(context.Background(), "ROLLBACK")
				lock.conn.Close()
				lock.conn = nil
			}
		}}
	}, pt.Text("hello"))
	res := h.turn("hi")
	if lock.failed != nil {
		t.Fatalf("locking the database: %v", lock.failed)
	}
	if res.Err != nil {
		t.Fatalf("turn: %v", res.Err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[1].Message.Role != message.RoleAssistant {
		t.Fatalf("stored history: %d entries", len(hist))
	}
	var types []message.PartType
	for _, p := range hist[1].Parts {
		types = append(types, p.Type)
	}
	if len(types) < 2 || types[0] != message.PartStepStart || types[1] != message.PartText || hist[1].Parts[1].Text != "hello" {
		t.Errorf("assistant parts %v", types)
	}
	var announced []message.PartType
	for _, ev := range h.eventsOf(message.EventPartUpdated) {
		if ev.Part.MessageID == hist[1].Message.ID {
			announced = append(announced, ev.Part.Type)
		}
	}
	if len(announced) == 0 || announced[0] != message.PartStepStart {
		t.Errorf("assistant part events %v, want the step-start first", announced)
	}
	if got := h.r.History(); len(got) != 2 || got[1].Message.ID != hist[1].Message.ID || len(got[1].Parts) != len(hist[1].Parts) {
		t.Errorf("the runner's history differs from the stored one")
	}
}
