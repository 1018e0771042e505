package loop

// Unit tests of the checkpointer on its own: no Runner, a real database in
// a temporary directory, real snapshots of a temporary directory, and
// function values that record what the checkpointer asks of the session.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// cpFixture is a checkpointer over a session's database rows and a
// directory, with a session of its own: a history, a busy flag, and the
// events, notes, claims, releases and reloads the checkpointer made.
type cpFixture struct {
	t   *testing.T
	db  *storage.Store
	dir string
	c   *checkpointer

	mu       sync.Mutex
	history  []message.Entry
	events   []message.Event
	notes    []string
	busy     bool
	claims   int
	released int
	reloads  int
}

func newCPFixture(t *testing.T, enabled bool) *cpFixture {
	t.Helper()
	ctx := context.Background()
	data := t.TempDir()
	seedDataDir(t, data)
	db, err := storage.Open(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sess := &message.Session{Model: "m", Dir: dir}
	if err := db.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{DataDir: data, Snapshots: config.Snapshots{Enabled: enabled,
		MaxFileBytes: config.DefaultSnapshotMaxFileBytes, IgnoredMaxBytes: config.DefaultSnapshotIgnoredMaxBytes,
		MaxFiles: config.DefaultSnapshotMaxFiles, FirstSnapshot: config.DefaultSnapshotFirst}}
	f := &cpFixture{t: t, db: db, dir: dir}
	reg := tools.NewRegistry()
	f.c = newCheckpointer(ctx, checkpointDeps{db: db, session: sess.ID, dir: dir, config: cfg,
		emit:     func(ev message.Event) { f.mu.Lock(); f.events = append(f.events, ev); f.mu.Unlock() },
		note:     func(msg string) { f.mu.Lock(); f.notes = append(f.notes, msg); f.mu.Unlock() },
		registry: func() *tools.Registry { return reg },
		history: func() []message.Entry {
			f.mu.Lock()
			defer f.mu.Unlock()
			return append([]message.Entry(nil), f.history...)
		},
		editHistory: func(edit func([]message.Entry) []message.Entry) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.history = edit(f.history)
		},
		claim: func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.claims++
			was := f.busy
			f.busy = true
			return !was
		},
		release: func() { f.mu.Lock(); f.busy = false; f.released++; f.mu.Unlock() },
		reloaded: func(h []message.Entry) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.history, f.reloads = h, f.reloads+1
		},
	})
	return f
}

// add stores a message with its parts and appends it to the history.
func (f *cpFixture) add(role message.Role, parts ...message.Part) *message.Entry {
	f.t.Helper()
	ctx := context.Background()
	m := message.Message{SessionID: f.c.session, Role: role, Model: "m", FinishedAt: time.Now()}
	if err := f.db.CreateMessage(ctx, &m); err != nil {
		f.t.Fatal(err)
	}
	for i := range parts {
		parts[i].SessionID, parts[i].MessageID = f.c.session, m.ID
		if err := f.db.UpsertPart(ctx, &parts[i]); err != nil {
			f.t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.history = append(f.history, message.Entry{Message: m, Parts: parts})
	return &f.history[len(f.history)-1]
}

func (f *cpFixture) write(name, body string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *cpFixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// writeStep is a turn: the user asks, and the model's step writes a.txt
// (body) through the write tool, run between the checkpointer's snapshots.
// It returns the number of times the tools ran.
func (f *cpFixture) writeStep(body string) int {
	f.t.Helper()
	f.add(message.RoleUser, message.Part{Type: message.PartText, Text: "make a.txt say " + body})
	e := *f.add(message.RoleAssistant, message.Part{Type: message.PartTool, Tool: &message.ToolState{
		CallID: "w", Name: "write", Status: message.ToolCompleted, Input: `{"path":"a.txt","content":"` + body + `"}`,
		Metadata: map[string]any{"path": filepath.Join(f.dir, "a.txt")}}})
	ran := 0
	ctx := context.Background()
	f.c.aroundTools(ctx, &e, []int{0}, func() { ran++; f.write("a.txt", body) })
	f.c.settle(ctx)
	return ran
}

func (f *cpFixture) eventsOf(typ message.EventType) []message.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []message.Event
	for _, ev := range f.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// patchOf returns the patch part of the newest entry that has one.
func patchOf(history []message.Entry) *message.PatchState {
	for i := len(history) - 1; i >= 0; i-- {
		for _, p := range history[i].Parts {
			if p.Type == message.PartPatch {
				return p.Patch
			}
		}
	}
	return nil
}

// TestCheckpointerStoresTheStepsPatch: a step whose tool writes a file
// gets a patch part naming it — in the database, in the history (through
// editHistory) and as an event — and the turn's state is settled.
func TestCheckpointerStoresTheStepsPatch(t *testing.T) {
	needGit(t)
	f := newCPFixture(t, true)
	f.write("a.txt", "one\n")
	if ran := f.writeStep("two\n"); ran != 1 {
		t.Fatalf("the tools ran %d times, want 1", ran)
	}
	ps := patchOf(f.c.history())
	if ps == nil || len(ps.Files) != 1 || ps.Files[0].Path != "a.txt" || ps.Before == "" || ps.After == "" {
		t.Fatalf("history's patch %+v, want a.txt between two snapshots", ps)
	}
	stored, err := f.db.LoadHistory(context.Background(), f.c.session)
	if err != nil {
		t.Fatal(err)
	}
	if got := patchOf(stored); got == nil || got.After != ps.After {
		t.Fatalf("stored patch %+v, want %+v", got, ps)
	}
	var announced bool
	for _, ev := range f.eventsOf(message.EventPartUpdated) {
		announced = announced || (ev.Part != nil && ev.Part.Type == message.PartPatch)
	}
	if !announced {
		t.Fatal("the patch part was not announced")
	}
	if f.c.pending != nil || f.c.last.ID != "" {
		t.Fatalf("after settle: pending %v, last %q; want none (the next turn takes a fresh before)", f.c.pending, f.c.last.ID)
	}
	if len(f.notes) != 0 {
		t.Fatalf("notes %q, want none", f.notes)
	}
}

// TestCheckpointerUndoRestoresAndHandsBackTheHistory: undo restores the
// file, records the rewind, hands the reloaded history (its messages
// marked) to the session once, announces them, and ends the busy period
// it claimed.
func TestCheckpointerUndoRestoresAndHandsBackTheHistory(t *testing.T) {
	needGit(t)
	f := newCPFixture(t, true)
	f.write("a.txt", "one\n")
	f.writeStep("two\n")
	res, err := f.c.undo(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.read("a.txt"); got != "one\n" {
		t.Fatalf("a.txt %q after undo, want %q", got, "one\n")
	}
	if res.UserText != "make a.txt say two\n" || len(res.Messages) != 2 || res.Restore == nil {
		t.Fatalf("result %+v, want the user's text, both messages and a restore", res)
	}
	if f.claims != 1 || f.released != 1 || f.busy || f.reloads != 1 {
		t.Fatalf("claims %d, releases %d, busy %v, reloads %d; want one busy period and one reload", f.claims, f.released, f.busy, f.reloads)
	}
	for _, e := range f.c.history() {
		if !e.Message.Rewound() {
			t.Fatalf("message %s not marked rewound in the history handed back", e.Message.ID)
		}
	}
	if n := len(f.eventsOf(message.EventMessageUpdated)); n != 2 {
		t.Fatalf("%d message updates, want 2 (the messages taken back)", n)
	}
	// And a redo puts the step's change back.
	if _, err := f.c.redo(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if got := f.read("a.txt"); got != "two\n" {
		t.Fatalf("a.txt %q after redo, want %q", got, "two\n")
	}
}

// TestCheckpointerRefusesWhileBusy: while the session is busy a rewind
// and a redo refuse, touching nothing and releasing nothing they did not
// claim; a bad mode is refused before the busy flag is asked.
func TestCheckpointerRefusesWhileBusy(t *testing.T) {
	needGit(t)
	f := newCPFixture(t, true)
	f.write("a.txt", "one\n")
	f.writeStep("two\n")
	if _, err := f.c.rewind(context.Background(), "x", RewindOptions{Mode: "sideways"}); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Fatalf("bad mode: %v", err)
	}
	if f.claims != 0 {
		t.Fatalf("a bad mode claimed the busy flag %d times", f.claims)
	}
	f.busy = true
	if _, err := f.c.undo(context.Background(), true); err == nil || !strings.Contains(err.Error(), "rewind: the agent is busy") {
		t.Fatalf("undo while busy: %v", err)
	}
	if _, err := f.c.redo(context.Background(), true); err == nil || !strings.Contains(err.Error(), "redo: the agent is busy") {
		t.Fatalf("redo while busy: %v", err)
	}
	if f.released != 0 || !f.busy || f.reloads != 0 {
		t.Fatalf("releases %d, busy %v, reloads %d; want the running turn's busy flag left alone", f.released, f.busy, f.reloads)
	}
	if got := f.read("a.txt"); got != "two\n" {
		t.Fatalf("a.txt %q, want it untouched", got)
	}
	if rw, err := f.db.ListRewinds(context.Background(), f.c.session); err != nil || len(rw) != 0 {
		t.Fatalf("rewinds %v (%v), want none recorded", rw, err)
	}
}

// TestCheckpointerOff: with checkpoints switched off the tools run once
// without a snapshot, diff says why, and a rewind takes back the
// conversation only, saying why the files stay. A step of read-only tools
// never opens the store even when they are on.
func TestCheckpointerOff(t *testing.T) {
	f := newCPFixture(t, false)
	f.write("a.txt", "one\n")
	if ran := f.writeStep("two\n"); ran != 1 {
		t.Fatalf("the tools ran %d times, want 1", ran)
	}
	if ps := patchOf(f.c.history()); ps != nil {
		t.Fatalf("patch %+v with checkpoints off", ps)
	}
	if _, err := f.c.diff(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "checkpoints are switched off") {
		t.Fatalf("diff: %v", err)
	}
	res, err := f.c.undo(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesNote != "checkpoints are switched off (checkpoints.enabled)" || len(res.Messages) != 2 || f.read("a.txt") != "two\n" {
		t.Fatalf("result %+v, a.txt %q: want the conversation taken back and the files left", res, f.read("a.txt"))
	}

	on := newCPFixture(t, true)
	e := *on.add(message.RoleAssistant, message.Part{Type: message.PartTool, Tool: &message.ToolState{
		CallID: "r", Name: "read", Status: message.ToolCompleted, Input: `{"path":"a.txt"}`}})
	ran := 0
	on.c.aroundTools(context.Background(), &e, []int{0}, func() { ran++ })
	on.c.settle(context.Background())
	if ran != 1 || on.c.store != nil || on.c.whyOff() != "" {
		t.Fatalf("read-only step: ran %d, store %v, off %q; want the tools run and no store opened", ran, on.c.store, on.c.whyOff())
	}
}
