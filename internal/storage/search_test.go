package storage

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

func searchIDs(t *testing.T, s *Store, sessionID, query string) []string {
	t.Helper()
	hits, err := s.SearchSession(context.Background(), sessionID, query, 10)
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Part.ID)
	}
	return ids
}

func TestHistoryIndexFollowsWrites(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")

	user := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText, Text: "please look at quokka.go"}
	if err := s.UpsertPart(ctx, user); err != nil {
		t.Fatal(err)
	}
	// A streamed answer is indexed once finished, not while its deltas are
	// flushed.
	stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
	if err != nil {
		t.Fatal(err)
	}
	stream.Append("the wombat ")
	if err := stream.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, sess.ID, "wombat"); len(got) != 0 {
		t.Errorf("an unfinished stream is indexed: %v", got)
	}
	stream.Append("sleeps")
	answer, err := stream.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, sess.ID, "wombat sleeps"); !reflect.DeepEqual(got, []string{answer.ID}) {
		t.Errorf("finished stream: hits %v, want %s", got, answer.ID)
	}

	// A running tool is not indexed; once it completes it is, and stays
	// searchable after it is pruned.
	tool := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool, Tool: &message.ToolState{
		CallID: "call_1", Name: "bash", Status: message.ToolRunning, Input: `{"command":"make"}`, Output: "ZETA_77 so far"}}
	if err := s.UpsertPart(ctx, tool); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, sess.ID, "zeta_77"); len(got) != 0 {
		t.Errorf("a running tool is indexed: %v", got)
	}
	tool.Tool.Status, tool.Tool.Output = message.ToolCompleted, "build ok, ZETA_77 done"
	if err := s.UpsertPart(ctx, tool); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkCompacted(ctx, []string{tool.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchSession(ctx, sess.ID, "ZETA_77", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Part.ID != tool.ID || hits[0].Part.Tool.CompactedAt.IsZero() || !hits[0].Phrase {
		t.Fatalf("pruned output: hits %+v", hits)
	}
	if !strings.Contains(hits[0].Snippet, "ZETA_77 done") {
		t.Errorf("snippet %q", hits[0].Snippet)
	}
	// Updated again (the state of a finished part may change): one row.
	if err := s.UpsertPart(ctx, tool); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, sess.ID, "zeta"); len(got) != 1 {
		t.Errorf("re-indexed part: hits %v", got)
	}

	// Another session does not see these; deleting the session empties
	// the index.
	other, _ := newSession(t, s, "/w")
	if got := searchIDs(t, s, other.ID, "quokka"); len(got) != 0 {
		t.Errorf("other session sees %v", got)
	}
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := s.db.QueryRow(`SELECT count(*) FROM history_fts`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("%d index rows left after deleting the session", rows)
	}
}

func TestSearchQueriesAreNeverSyntaxErrors(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	if err := s.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText,
		Text: `he said "near" the AND gate: NEAR(x y) costs 5* more`}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"unbalanced`, `NEAR(x y)`, `*`, `near`, `a OR`, `-gate`, `body:gate`, `AND`, `""`,
		`(`, `x)`, `^gate`, `gate*`, `"near" "`, `'`, `NOT`, "\x00", `✓ ☃`} {
		if _, err := s.SearchSession(ctx, sess.ID, q, 5); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
		if _, err := s.SearchSessions(ctx, q, "", 5); err != nil {
			t.Errorf("sessions query %q: %v", q, err)
		}
	}
	if got := searchIDs(t, s, sess.ID, `NEAR(x y)`); len(got) != 1 {
		t.Errorf("NEAR(x y) as words: %v", got)
	}
	// No part has every word: any word then matches.
	if got := searchIDs(t, s, sess.ID, `gate platypus`); len(got) != 1 {
		t.Errorf("fallback to any term: %v", got)
	}
}

func TestSearchReadsSavedOutputAndRanksPhrases(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	saved := filepath.Join(t.TempDir(), "call_9.txt")
	full := strings.Repeat("line of build log\n", 3000) + "panic: flux capacitor overheated\n"
	if err := os.WriteFile(saved, []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	truncated := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool, Tool: &message.ToolState{
		CallID: "call_9", Name: "bash", Status: message.ToolCompleted, Input: `{"command":"make"}`,
		Output: "line of build log\n…truncated", Truncated: true, FullOutputPath: saved}}
	words := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText,
		Text: "the capacitor is fine; flux is low; overheated earlier"}
	for _, p := range []*message.Part{words, truncated} {
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := s.SearchSession(ctx, sess.ID, "flux capacitor overheated", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Part.ID != truncated.ID || !hits[0].Phrase || hits[1].Phrase {
		t.Fatalf("hits %+v", hits)
	}
	if !strings.Contains(hits[0].Snippet, "panic: flux capacitor overheated") {
		t.Errorf("snippet %q, want the saved output's line", hits[0].Snippet)
	}
	got, err := s.GetPart(ctx, truncated.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Text, full) {
		t.Errorf("GetPart text lacks the saved output")
	}
}

func TestSearchSessions(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	here, m1 := newSession(t, s, "/here")
	there, m2 := newSession(t, s, "/there")
	for _, p := range []*message.Part{
		{SessionID: here.ID, MessageID: m1.ID, Type: message.PartText, Text: "the migration to postgres failed"},
		{SessionID: there.ID, MessageID: m2.ID, Type: message.PartReasoning, Text: "postgres migration next"},
	} {
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.SearchSessions(ctx, "postgres migration", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Session.ID == all[1].Session.ID || len(all[0].Hits) != 1 {
		t.Fatalf("all sessions: %+v", all)
	}
	dir, err := s.SearchSessions(ctx, "postgres", "/there", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(dir) != 1 || dir[0].Session.ID != there.ID {
		t.Fatalf("one directory: %+v", dir)
	}
}

// TestHistoryIndexMigrationIndexesOldDatabases opens a database written by
// the schema before the index and finds its parts.
func TestHistoryIndexMigrationIndexesOldDatabases(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, DBName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var before int
	for _, m := range migrations() {
		if strings.Contains(m.name, "history_index") {
			break
		}
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatal(err)
		}
		before = m.version
	}
	if _, err := db.Exec(`PRAGMA user_version = ` + strconv.Itoa(before)); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO sessions (id, created_at, updated_at) VALUES ('S', 1, 1)`)
	exec(`INSERT INTO messages (id, session_id, role, created_at, updated_at) VALUES ('M', 'S', 'assistant', 1, 1)`)
	part := func(id, typ, state string) {
		exec(`INSERT INTO parts (id, session_id, message_id, type, state, created_at, updated_at)
			VALUES (?, 'S', 'M', ?, ?, 1, 1)`, id, typ, state)
	}
	part("P1", "text", `{"text":"an old kookaburra"}`)
	part("P2", "tool", `{"tool":{"call_id":"c","name":"bash","status":"completed","input":"{}","output":"old echidna","compacted_at":"2026-01-01T00:00:00Z"}}`)
	part("P3", "tool", `{"tool":{"call_id":"d","name":"bash","status":"running","input":"{}","output":"old echidna running"}}`)
	db.Close()

	s := openAt(t, dir)
	if got := searchIDs(t, s, "S", "kookaburra"); !reflect.DeepEqual(got, []string{"P1"}) {
		t.Errorf("kookaburra: %v", got)
	}
	if got := searchIDs(t, s, "S", "echidna"); !reflect.DeepEqual(got, []string{"P2"}) {
		t.Errorf("echidna: %v", got)
	}
	// Rebuilding gives the same.
	if err := s.RebuildHistoryIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, "S", "echidna kookaburra"); len(got) != 2 {
		t.Errorf("after rebuild: %v", got)
	}
}

func TestQueryTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`MARKER_abc123`, []string{"marker", "abc123"}},
		{`"unbalanced`, []string{"unbalanced"}},
		{`*`, nil},
		{`NEAR(a b) a`, []string{"near", "a", "b"}},
		{`Café über`, []string{"café", "über"}},
	} {
		if got := QueryTerms(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	text := strings.Repeat("a ", 200) + "NEEDLE" + strings.Repeat(" b", 200)
	i := strings.Index(text, "NEEDLE")
	s := Snippet(text, []int{i, i + 6}, 40)
	if !strings.Contains(s, "NEEDLE") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || len(s) > 60 {
		t.Errorf("snippet %q", s)
	}
	if s := Snippet("line one\nline two", nil, 40); s != "line one line two" {
		t.Errorf("short snippet %q", s)
	}
}
