package loop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// stepRequests returns the prefixes of the session's step requests (the
// title's and summaries' aside: those do not start with the stable
// prompt).
func stepRequests(t *testing.T, h *harness) []stepPrefix {
	t.Helper()
	var out []stepPrefix
	for _, r := range h.srv.Requests() {
		if msgs := r.Chat.Messages; len(msgs) > 0 && msgs[0].Content == stablePrompt {
			out = append(out, prefixOf(t, r.Body))
		}
	}
	return out
}

// boundaryReasons lists the reasons of the session's recorded cache
// boundaries.
func boundaryReasons(t *testing.T, h *harness) []string {
	t.Helper()
	rows, err := h.store.ListEventLogKind(context.Background(), h.r.Session().ID, CacheBoundaryKind)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, row := range rows {
		var b CacheBoundary
		if err := json.Unmarshal(row.Data, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Reason)
	}
	return out
}

// A session in a repository whose files change between turns keeps its
// system messages byte-identical: the git status of a later turn reaches
// the model in that turn's user message, stored with it, so each request
// extends the one before and no boundary is recorded.
func TestGitStatusChangeKeepsTheSystemMessages(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { gitRepo(t, o.Dir) }, pt.Text("one"), pt.Text("two"), pt.Text("three"))
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	if res := h.turn("second"); res.Err != nil {
		t.Fatal(res.Err)
	}
	write("new.go", "package main\n")
	if res := h.turn("third"); res.Err != nil {
		t.Fatal(res.Err)
	}
	reqs := stepRequests(t, h)
	if len(reqs) != 3 {
		t.Fatalf("%d step requests, want 3", len(reqs))
	}
	for i := 1; i < 3; i++ {
		if prev, next := reqs[i-1], reqs[i]; !next.extends(prev) {
			j := 0
			for j < len(prev.msgs) && j < len(next.msgs) && prev.msgs[j] == next.msgs[j] {
				j++
			}
			t.Errorf("request %d does not extend request %d from message %d:\n%s", i+1, i, j, strings.Join(next.msgs[j:], "\n"))
		}
	}
	first := h.request(0)
	if strings.Contains(first[1].Content, "M main.go") || !strings.Contains(first[1].Content, "Git status at the start of the session") {
		t.Errorf("the first system message:\n%s", first[1].Content)
	}
	last := func(n int) string {
		msgs := h.srv.Requests()[n].Chat.Messages
		m := msgs[len(msgs)-1]
		if m.Role != openai.ChatMessageRoleUser {
			t.Fatalf("request %d ends with a %s message", n+1, m.Role)
		}
		return m.Content
	}
	if got := last(0); strings.Contains(got, "<env>") {
		t.Errorf("the first turn's message carries a status block, the system message has it:\n%s", got)
	}
	if got := last(1); !strings.HasPrefix(got, "second") || !strings.Contains(got, "<env>") || !strings.Contains(got, "M main.go") {
		t.Errorf("the second turn's message lacks the new status:\n%s", got)
	}
	if got := last(2); !strings.HasPrefix(got, "third") || !strings.Contains(got, "?? new.go") {
		t.Errorf("the third turn's message lacks the new status:\n%s", got)
	}
	if got := boundaryReasons(t, h); len(got) != 0 {
		t.Errorf("boundaries recorded: %v, want none", got)
	}
	// The status is a part of its own, stored with the message.
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	envParts := 0
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Type == message.PartFile && p.File != nil && p.File.Kind == message.AttachEnv {
				envParts++
			}
		}
	}
	if envParts != 2 {
		t.Errorf("%d environment parts stored, want 2 (turns two and three)", envParts)
	}
	assertReadingMatches(t, h, "after three turns")
}

// An edit of AGENTS.md between turns is a change of the system message's
// stable part: the message is made again and the break is a recorded
// `system` boundary.
func TestInstructionsEditRebuildsTheSystemMessage(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { gitRepo(t, o.Dir) }, pt.Text("one"), pt.Text("two"))
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "AGENTS.md"), []byte("Run make test before you finish.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("second"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := h.request(1)[1].Content; !strings.Contains(got, "Run make test before you finish.") {
		t.Errorf("the second request's system message lacks the instructions:\n%s", got)
	}
	if got := boundaryReasons(t, h); len(got) != 1 || got[0] != BoundarySystem {
		t.Errorf("boundaries recorded: %v, want [system]", got)
	}
}

// lastSeenStatus reads the newest status block the model is sent, and
// none from before a summary.
func TestLastSeenStatus(t *testing.T) {
	env := func(id, status string) message.Entry {
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleUser}, Parts: []message.Part{
			{Type: message.PartText, Text: "hi"},
			{Type: message.PartFile, File: &message.FileState{Kind: message.AttachEnv, Content: status}},
		}}
	}
	summary := message.Entry{Message: message.Message{ID: "s", Role: message.RoleAssistant, Summary: true}}
	rewound := env("r", "R")
	rewound.Message.RewindID = "x"
	for _, c := range []struct {
		name string
		hist []message.Entry
		want string
	}{
		{"none", nil, "START"},
		{"newest", []message.Entry{env("a", "A"), env("b", "B")}, "B"},
		{"rewound", []message.Entry{env("a", "A"), rewound}, "A"},
		{"summarised", []message.Entry{env("a", "A"), summary}, "START"},
		{"after summary", []message.Entry{env("a", "A"), summary, env("b", "B")}, "B"},
	} {
		if got := lastSeenStatus(c.hist, "START"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// The system messages of a session change with their stable parts (the
// date, the instructions), never with the git status gathered for a turn.
func TestSystemMessagesFollowOnlyTheStableParts(t *testing.T) {
	s := &sessionState{}
	day := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	start := Environment{Dir: "/w", Date: day, GitStatus: "## main"}
	first := SystemPrompt(s.sessionEnv(start))
	later := start
	later.GitStatus, later.Date = "## main\n M a.go", day.Add(30*time.Second) // another turn, the same day
	if got := SystemPrompt(s.sessionEnv(later)); !slices.Equal(got, first) || s.git.now != later.GitStatus {
		t.Errorf("a new git status changed the system messages:\n%q\n%q", got, first)
	}
	for name, env := range map[string]Environment{
		"date":         {Dir: "/w", Date: day.Add(time.Minute), GitStatus: "## main\n M a.go"},
		"instructions": {Dir: "/w", Date: day, GitStatus: "## main", Instructions: []Instruction{{Path: "/w/AGENTS.md", Text: "Test first."}}},
	} {
		got := SystemPrompt(s.sessionEnv(env))
		if slices.Equal(got, first) {
			t.Errorf("%s: the system messages did not change", name)
		}
		if !strings.Contains(got[1], "Git status at the start of the session:\n## main\n") || strings.Contains(got[1], "a.go") {
			t.Errorf("%s: the system message lost the session's start status:\n%s", name, got[1])
		}
	}
}
