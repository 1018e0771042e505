package jobs

import (
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeProcess runs until stopped or ended.
type fakeProcess struct {
	once   sync.Once
	done   chan struct{}
	status string
	stops  int
}

func newFake() *fakeProcess { return &fakeProcess{done: make(chan struct{})} }

func (p *fakeProcess) end(status string) {
	p.once.Do(func() { p.status = status; close(p.done) })
}
func (p *fakeProcess) Stop()                 { p.stops++; p.end("killed by SIGTERM") }
func (p *fakeProcess) Done() <-chan struct{} { return p.done }
func (p *fakeProcess) Status() string        { return p.status }

func add(t *testing.T, tb *Table, command string) (*Job, *fakeProcess) {
	t.Helper()
	id, err := tb.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	p := newFake()
	j := &Job{ID: id, Command: command, Process: p}
	tb.Add(j)
	return j, p
}

func TestTableLimitsRunningJobsAndNamesThem(t *testing.T) {
	tb := New(2)
	t.Cleanup(func() { tb.KillAll() })
	_, first := add(t, tb, "npm run dev")
	add(t, tb, "make watch")
	if _, err := tb.Reserve(); err == nil || !strings.Contains(err.Error(), "bg1 (running: npm run dev), bg2 (running: make watch)") {
		t.Fatalf("third reserve: %v", err)
	}
	first.end("exit code 0")
	id, err := tb.Reserve()
	if err != nil || id != "bg3" {
		t.Fatalf("a finished job still counts: %q, %v", id, err)
	}
	tb.Release(id)
	if _, err := tb.Get("bg3"); err == nil {
		t.Fatal("a released id is found")
	}
	if _, err := tb.Get("bg9"); err == nil || !strings.Contains(err.Error(), `no background process "bg9"`) ||
		!strings.Contains(err.Error(), "bg1 (exited: exit code 0: npm run dev)") {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestTableKillAllStopsTheRunningAndEmpties(t *testing.T) {
	tb := New(0)
	changes := tb.Changes()
	_, a := add(t, tb, "a")
	_, b := add(t, tb, "b")
	b.end("exit code 1")
	<-changes
	stopped := tb.KillAll()
	if len(stopped) != 1 || stopped[0].ID != "bg1" || a.stops != 1 || b.stops != 0 {
		t.Fatalf("stopped %v, stops a=%d b=%d", stopped, a.stops, b.stops)
	}
	if len(tb.List()) != 0 || tb.Running() != 0 {
		t.Fatalf("left: %v", tb.List())
	}
	if _, err := tb.Kill("bg1"); err == nil || !strings.Contains(err.Error(), "there are no background processes") {
		t.Fatalf("kill after KillAll: %v", err)
	}
}

func TestNilTableHasNoJobs(t *testing.T) {
	var tb *Table
	if _, err := tb.Reserve(); err != ErrUnavailable {
		t.Fatalf("reserve: %v", err)
	}
	if tb.List() != nil || tb.KillAll() != nil || tb.Changes() != nil || tb.Running() != 0 {
		t.Fatal("a nil table has jobs")
	}
}
