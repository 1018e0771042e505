package storage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// forkWithHistory makes a session whose history says "platypus" (user
// text), "numbat" (a finished tool call), "quoll" (only in a saved full
// output) and "bilby" (a running tool call, not indexed), and forks it.
func forkWithHistory(t *testing.T, s *Store, savedDir string) (src, fork *message.Session) {
	t.Helper()
	ctx := context.Background()
	src = &message.Session{Dir: "/w", Title: "orig", Model: "m"}
	if err := s.CreateSession(ctx, src); err != nil {
		t.Fatal(err)
	}
	addEntry(t, s, src.ID, message.RoleUser, "where does the platypus live", nil)
	saved := filepath.Join(savedDir, "call.out")
	if err := os.WriteFile(saved, []byte("head\nthe quoll line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := message.Message{SessionID: src.ID, Role: message.RoleAssistant}
	if err := s.CreateMessage(ctx, &m); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []*message.ToolState{
		{CallID: "c1", Name: "bash", Status: message.ToolCompleted, Input: `{"command":"ls"}`, Output: "numbat.go",
			Truncated: true, FullOutputPath: saved},
		{CallID: "c2", Name: "bash", Status: message.ToolRunning, Input: `{"command":"sleep"}`, Output: "bilby"},
	} {
		if err := s.UpsertPart(ctx, &message.Part{SessionID: src.ID, MessageID: m.ID, Type: message.PartTool, Tool: tool}); err != nil {
			t.Fatal(err)
		}
	}
	fork, err := s.ForkSession(ctx, src.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	return src, fork
}

// TestForkedHistoryIsIndexed: a fork's copied history is found by a search
// of the fork and by a search across sessions, like any session's; what
// the original would not index (a running call) is not indexed either.
func TestForkedHistoryIsIndexed(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	src, fork := forkWithHistory(t, s, t.TempDir())
	for _, word := range []string{"platypus", "numbat", "quoll"} {
		hits, err := s.SearchSession(ctx, fork.ID, word, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Part.SessionID != fork.ID {
			t.Errorf("search of the fork for %q: %+v, want one hit in the fork", word, hits)
		}
	}
	if ids := searchIDs(t, s, fork.ID, "bilby"); len(ids) != 0 {
		t.Errorf("a running call's output was indexed in the fork: %v", ids)
	}
	all, err := s.SearchSessions(ctx, "platypus", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, sh := range all {
		got[sh.Session.ID] = true
	}
	if len(all) != 2 || !got[src.ID] || !got[fork.ID] {
		t.Errorf("search across sessions lists %d sessions %v; want the original %s and the fork %s", len(all), got, src.ID, fork.ID)
	}
}

// TestForkIndexMigrationIndexesExistingForks opens a database holding a
// fork made before forks were indexed (its index rows removed, the schema
// one migration back) and finds the fork's history; what was indexed
// already is not indexed twice.
func TestForkIndexMigrationIndexesExistingForks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	version := 0
	for _, m := range migrations() {
		if strings.Contains(m.name, "index_forks") {
			version = m.version
		}
	}
	if version == 0 {
		t.Fatal("no migration indexes the parts the history index lacks (forks made before they were indexed)")
	}
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	src, fork := forkWithHistory(t, s, t.TempDir())
	s.Close()

	db := rawDB(t, filepath.Join(dir, DBName))
	for _, q := range []string{
		`DELETE FROM history_fts WHERE rowid IN (SELECT rowid FROM parts WHERE session_id = '` + fork.ID + `')`,
		`PRAGMA user_version = ` + strconv.Itoa(version-1),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s = openAt(t, dir)
	for _, word := range []string{"platypus", "numbat"} {
		if ids := searchIDs(t, s, fork.ID, word); len(ids) != 1 {
			t.Errorf("after the migration, search of the fork for %q: %v, want one hit", word, ids)
		}
		if ids := searchIDs(t, s, src.ID, word); len(ids) != 1 {
			t.Errorf("after the migration, search of the original for %q: %v, want one hit", word, ids)
		}
	}
	if ids := searchIDs(t, s, fork.ID, "bilby"); len(ids) != 0 {
		t.Errorf("the migration indexed a running call: %v", ids)
	}
	var rows, indexed int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM history_fts`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(DISTINCT rowid) FROM history_fts`).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if rows != indexed || rows != 4 {
		t.Errorf("index holds %d rows for %d parts; want 4 (two texts, two finished calls), none twice", rows, indexed)
	}
}
