package storage

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestStmtCacheReusesTheHotStatements: a message's insert and a part's
// indexing are prepared once and the same statements serve every later
// write; what they write is what the text statements wrote (the parts are
// found by search, a re-indexed part by its new words only), and the
// memories' cached count follows a memory added after it was prepared.
func TestStmtCacheReusesTheHotStatements(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	insert := s.stmts.lookup(insertMessageSQL)
	if insert == nil {
		t.Fatal("the message insert was not prepared")
	}
	words := []string{"alpha", "bravo", "charlie"}
	var parts []*message.Part
	for _, w := range words {
		m := &message.Message{SessionID: sess.ID, Role: message.RoleUser}
		p := &message.Part{SessionID: sess.ID, Type: message.PartText, Text: "say " + w}
		if err := s.CreateMessage(ctx, m, p); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
		if got := s.stmts.lookup(insertMessageSQL); got != insert {
			t.Fatal("the message insert was prepared again")
		}
	}
	for _, q := range indexSQL {
		if s.stmts.lookup(q) == nil {
			t.Fatalf("not prepared: %s", q)
		}
	}
	parts[1].Text = "say delta"
	if err := s.UpsertPart(ctx, parts[1]); err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string]int{"alpha": 1, "bravo": 0, "charlie": 1, "delta": 1} {
		hits, err := s.SearchSession(ctx, sess.ID, w, 10)
		if err != nil || len(hits) != want {
			t.Errorf("search %q: %d hits, %v; want %d", w, len(hits), err, want)
		}
	}
	for want := 0; want < 3; want++ {
		n, err := s.Memories().Count(ctx, "/w")
		if err != nil || n != want {
			t.Fatalf("count %d, %v; want %d", n, err, want)
		}
		if err := s.Memories().Add(ctx, &Memory{Scope: "/w", Text: "fact " + words[want]}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStmtCacheDoesNotDeadlock: a read that prepares a statement waits for
// the writer's one connection, held by a transaction, without holding the
// cache's lock, so the transaction's own lookups go on and both finish.
func TestStmtCacheDoesNotDeadlock(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	inTx, release := make(chan struct{}), make(chan struct{})
	txDone := make(chan error, 1)
	go func() {
		txDone <- s.inTx(ctx, "test", func(tx *sql.Tx) error {
			close(inTx)
			<-release
			m := &message.Message{SessionID: sess.ID, Role: message.RoleUser}
			stampMessage(m, now())
			_, err := s.stmts.exec(ctx, tx, insertMessageSQL, messageArgs(m)...)
			return err
		})
	}()
	<-inTx
	counted := make(chan error, 1)
	go func() {
		_, err := s.Memories().Count(ctx, "/elsewhere") // prepares: waits for the connection
		counted <- err
	}()
	close(release)
	for name, ch := range map[string]chan error{"transaction": txDone, "count": counted} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never finished: the cache deadlocked", name)
		}
	}
}
