package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttributeClaimsOnlyWhatTheStepsToolsCouldHaveChanged: a write knows
// its path; a save outside the step's window, or during another session's
// tool, is not the step's; a shell command's change it does not name is
// unsure; deletions and named paths are the step's.
func TestAttributeClaimsOnlyWhatTheStepsToolsCouldHaveChanged(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	step := StepTools{Session: "A", Known: []string{"w.txt"}, Commands: []string{"echo x > out.txt; rm -rf build; sed -i s/a/b/ src/*.go"}, Start: at(10), End: at(20)}
	others := []Window{{Session: "B", Start: at(12), End: at(13)}, {Session: "C", Start: at(18)}}
	times := map[string]time.Time{
		"w.txt": at(30), "out.txt": at(15), "notes.txt": at(15), "late.txt": at(25),
		"b.txt": at(12.5), "c.txt": at(19), "build/x.o": at(15), "src/m.go": at(15), "gone.txt": at(14),
	}
	files := []FileChange{
		{Path: "w.txt", Status: Modified}, {Path: "out.txt", Status: Added}, {Path: "notes.txt", Status: Modified},
		{Path: "late.txt", Status: Modified}, {Path: "b.txt", Status: Added}, {Path: "c.txt", Status: Added},
		{Path: "build/x.o", Status: Deleted}, {Path: "src/m.go", Status: Modified}, {Path: "gone.txt", Status: Deleted},
	}
	want := map[string]struct {
		claim   Claim
		session string
	}{
		"w.txt": {Claimed, ""}, "out.txt": {Claimed, ""}, "notes.txt": {Unsure, ""}, "late.txt": {Outside, ""},
		"b.txt": {Outside, "B"}, "c.txt": {Outside, "C"}, "build/x.o": {Claimed, ""}, "src/m.go": {Claimed, ""}, "gone.txt": {Claimed, ""},
	}
	got := Attribute(files, step, others, func(p string) (time.Time, bool) { tm, ok := times[p]; return tm, ok })
	for _, a := range got {
		if w := want[a.Path]; a.Claim != w.claim || a.Session != w.session {
			t.Errorf("%s: claim %d session %q (%s), want %d %q", a.Path, a.Claim, a.Session, a.Why, w.claim, w.session)
		}
	}

	writeOnly := StepTools{Session: "A", Known: []string{"w.txt"}, Start: at(10), End: at(20)}
	for _, a := range Attribute(files[:3], writeOnly, nil, func(p string) (time.Time, bool) { return times[p], true }) {
		if (a.Path == "w.txt") != (a.Claim == Claimed) {
			t.Errorf("write-only step: %s claim %d", a.Path, a.Claim)
		}
	}
}

// TestRefusalNamesTheOtherSession: a file session B's tool changed after
// session A last left it makes A's restore refuse, naming B.
func TestRefusalNamesTheOtherSession(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	a := filepath.Join(work, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	s := openStore(t, work)
	first, err := s.Take(ctx, "A", "before")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, []byte("two, by A\n"), 0o644)
	left, err := s.Take(ctx, "A", "after")
	if err != nil {
		t.Fatal(err)
	}
	end, err := s.BeginTool(ctx, "B")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, []byte("three, by B\n"), 0o644)
	end()
	_, err = s.Restore(ctx, "A", first.ID, RestoreOptions{Paths: []string{"a.txt"}, Agent: []Expectation{{At: left.ID, Paths: []string{"a.txt"}}}})
	var oc *OutsideChangesError
	if !errors.As(err, &oc) || len(oc.Files) != 1 || !strings.Contains(oc.Why["a.txt"], "session B") {
		t.Fatalf("restore = %v (%+v), want a refusal naming session B", err, oc)
	}
	if got, _ := os.ReadFile(a); string(got) != "three, by B\n" {
		t.Errorf("a refused restore changed a.txt: %q", got)
	}
}
