package loop

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// dbLock holds the database's write lock from another connection.
type dbLock struct {
	mu   sync.Mutex
	conn *sql.Conn
}

func lockDB(t *testing.T, path string) *dbLock {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return &dbLock{conn: conn}
}

func (l *dbLock) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		_, _ = l.conn.ExecContext(context.Background(), "ROLLBACK")
		l.conn.Close()
		l.conn = nil
	}
}

// The user message is written while its request is built and sent, not
// before (issue 36 item 4): with the database's write lock held by
// another connection from Enter until the request reaches the provider,
// the turn still goes out, then every write goes through in the order it
// always had — the user message, then the assistant message with its
// step-start part — and the events follow that order.
func TestRequestDoesNotWaitForTheUserMessageWrite(t *testing.T) {
	var lock *dbLock
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		o.Provider = &lockedUntilSent{inner: o.Provider, unlock: func() { lock.release() }}
	}, pt.Text("hello"))
	lock = lockDB(t, h.store.Path())
	res := h.turn("hi")
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
	if len(hist) != 2 || hist[0].Message.Role != message.RoleUser || hist[0].Parts[0].Text != "hi" ||
		hist[1].Message.Role != message.RoleAssistant || hist[0].Message.ID >= hist[1].Message.ID {
		t.Fatalf("stored history: %d entries", len(hist))
	}
	var order []string
	for _, ev := range h.eventsOf(message.EventMessageUpdated) {
		if len(order) == 0 || order[len(order)-1] != ev.Message.ID {
			order = append(order, ev.Message.ID)
		}
	}
	if len(order) < 2 || order[0] != hist[0].Message.ID || order[1] != hist[1].Message.ID {
		t.Errorf("message events in the order %v, want the user's %s then the assistant's %s", order, hist[0].Message.ID, hist[1].Message.ID)
	}
	got := h.r.History()
	if len(got) != 2 || got[0].Message.ID != hist[0].Message.ID || got[0].Parts[0].ID != hist[0].Parts[0].ID {
		t.Errorf("the runner's history differs from the stored one")
	}
}

// A user message whose write fails is the send's error, as before the
// write moved beside the request, and the turn stops there: no answer
// stored, the message out of the runner's history. (It waits out the
// store's busy timeout: 5 s.)
func TestUserMessageWriteFailureStopsTheTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, pt.Text("hello"))
	lock := lockDB(t, h.store.Path())
	_, err := h.r.Send(context.Background(), "hi")
	lock.release()
	if err == nil || !strings.Contains(err.Error(), "save user message") {
		t.Fatalf("send: %v, want the write's error", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res := h.r.Wait(ctx); res.FinishReason != FinishError || res.Err == nil {
		t.Errorf("turn: %+v, want it ended by the write's error", res)
	}
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 0 {
		t.Errorf("%d messages stored, want none", len(hist))
	}
	if got := h.r.History(); len(got) != 0 {
		t.Errorf("the runner's history has %d entries, want none", len(got))
	}
	if ev := h.eventsOf(message.EventMessageUpdated); len(ev) != 0 {
		t.Errorf("%d message events, want none", len(ev))
	}
}

// hungConnect is a provider whose request never goes out (a connect that
// hangs): Stream returns only when the turn is cancelled, and never calls
// Request.Sent.
type hungConnect struct{}

func (hungConnect) Stream(ctx context.Context, _ provider.Request) (provider.Stream, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A send whose ctx ends while the request has not gone out returns: its
// caller (`agent run` on Ctrl-C, SIGTERM) goes on to cancel the turn,
// which a send waiting for the request's Sent would keep it from doing
// until the connect gave up. The message is still stored once the turn
// ends.
func TestSendReturnsWhenItsContextEndsBeforeTheRequestGoesOut(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Provider = hungConnect{} })
	ctx, cancel := context.WithCancel(context.Background())
	sent := make(chan error, 1)
	go func() {
		_, err := h.r.Send(ctx, "hi")
		sent <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		_, _ = h.r.Cancel(context.Background()) // let the test end
		<-sent
		t.Fatal("Send kept waiting for a request that never went out after its context ended")
	}
	if _, err := h.r.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	h.r.Wait(wctx)
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) == 0 || hist[0].Message.Role != message.RoleUser || hist[0].Parts[0].Text != "hi" {
		t.Fatalf("stored history of %d entries, want the user message first", len(hist))
	}
}

// A request whose connect hangs does not keep its user message off the
// screen and out of the store: the write waits for the request's Sent at
// most commitLatest, then commits (and its events go out) while the
// request still hangs.
func TestUserMessageIsStoredWhileItsRequestHangs(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Provider = hungConnect{} })
	sent := make(chan error, 1)
	go func() {
		_, err := h.r.Send(context.Background(), "hi")
		sent <- err
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		_, _ = h.r.Cancel(context.Background())
		<-sent
		t.Fatal("the user message was not written while its request hung")
	}
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) == 0 || hist[0].Message.Role != message.RoleUser || hist[0].Parts[0].Text != "hi" {
		t.Fatalf("stored history of %d entries while the request hangs, want the user message", len(hist))
	}
	if _, err := h.r.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	h.r.Wait(wctx)
}
