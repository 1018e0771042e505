package overlay

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/storage"
)

const memoryDir = "/work/project"

// memoryPanelOn is a /memory panel on a real database holding ms (in
// order), loaded.
func memoryPanelOn(t *testing.T, ms ...storage.Memory) (*MemoryPanel, storage.Memories) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	q := st.Memories()
	for i := range ms {
		if err := q.Add(ctx, &ms[i]); err != nil {
			t.Fatal(err)
		}
	}
	p := NewMemoryPanel(func(context.Context) (MemoryStore, error) { return q, nil },
		[]string{memoryDir, storage.ScopeUser}, "sk-the-agents-own-key-0123456789")
	deliver(t, p, p.Load())
	return p, q
}

// deliver runs cmd (as the chat would, off the Update loop) and gives
// its message back to the panel.
func deliver(t *testing.T, p *MemoryPanel, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	if _, ok := msg.(MemoryListedMsg); !ok {
		t.Fatalf("the panel's command returned %T, want MemoryListedMsg", msg)
	}
	p.Update(fakeHost{}, msg)
}

// press gives the panel keys and runs what they start.
func press(t *testing.T, p *MemoryPanel, keys ...tea.KeyPressMsg) Result {
	t.Helper()
	var res Result
	for _, k := range keys {
		var cmd tea.Cmd
		res, cmd = p.Update(fakeHost{}, k)
		deliver(t, p, cmd)
	}
	return res
}

func char(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

func panelText(p *MemoryPanel) string {
	return strings.Join(p.View(fakeHost{}, 100, 30), "\n")
}

func memoriesOf(t *testing.T, q storage.Memories) []storage.Memory {
	t.Helper()
	ms, err := q.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestMemoryPanelLists: each memory's row shows its scope, status,
// pin and source, and the footer its keys; escapes never reach the
// screen.
func TestMemoryPanelLists(t *testing.T) {
	p, _ := memoryPanelOn(t,
		storage.Memory{Scope: memoryDir, Text: "The tests run with make check"},
		storage.Memory{Scope: storage.ScopeUser, Text: "I prefer \x1b]52;c;aGk=\x07table-driven \x1b[31mtests", Pinned: true},
		storage.Memory{Scope: memoryDir, Text: "Deploys go through CI", Status: storage.MemoryProposed, SessionID: "01JX3K7Q9ZSESSION0000000000"},
	)
	got := panelText(p)
	for _, want := range []string{
		"Memory (3", "1 proposed",
		"active", "project", "The tests run with make check", "by you",
		"user", "pinned", "I prefer", "table-driven",
		"proposed", "Deploys go through CI", "01JX3K7Q9Z",
		"enter edit", "p pin", "d delete", "esc",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the panel lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, '\a') || strings.Contains(got, "\x1b]52;") || strings.Contains(got, "\x1b[31m") {
		t.Errorf("the panel shows a memory's escapes raw: %q", got)
	}
	// A proposed memory selected: the footer offers accept and reject.
	press(t, p, char('j'), char('j'))
	if got := panelText(p); !strings.Contains(got, "a accept") || !strings.Contains(got, "r reject") {
		t.Errorf("a proposed memory's keys are missing:\n%s", got)
	}
}

// TestMemoryPanelActs: each key does to the database what it says.
func TestMemoryPanelActs(t *testing.T) {
	p, q := memoryPanelOn(t,
		storage.Memory{Scope: memoryDir, Text: "first fact"},
		storage.Memory{Scope: memoryDir, Text: "proposed fact", Status: storage.MemoryProposed},
		storage.Memory{Scope: memoryDir, Text: "rejected fact", Status: storage.MemoryProposed},
		storage.Memory{Scope: storage.ScopeUser, Text: "last fact"},
	)
	// Pin the first, then unpin it.
	press(t, p, char('p'))
	if ms := memoriesOf(t, q); !ms[0].Pinned {
		t.Fatalf("p did not pin: %+v", ms[0])
	}
	if !strings.Contains(panelText(p), "pinned") {
		t.Errorf("the panel does not show the pin:\n%s", panelText(p))
	}
	press(t, p, char('p'))
	if ms := memoriesOf(t, q); ms[0].Pinned {
		t.Fatalf("p again did not unpin: %+v", ms[0])
	}
	// Accept the second.
	press(t, p, char('j'), char('a'))
	if ms := memoriesOf(t, q); ms[1].Status != storage.MemoryActive {
		t.Fatalf("a did not accept: %+v", ms[1])
	}
	// Reject the third: it is gone.
	press(t, p, char('j'), char('r'))
	if ms := memoriesOf(t, q); len(ms) != 3 || ms[2].Text != "last fact" {
		t.Fatalf("r did not reject the proposed memory: %+v", ms)
	}
	// Accept and reject do nothing to an active memory.
	press(t, p, char('r'), char('a'))
	if ms := memoriesOf(t, q); len(ms) != 3 || ms[2].Status != storage.MemoryActive {
		t.Fatalf("r or a acted on an active memory: %+v", ms)
	}
	press(t, p, char('k'), char('k'), char('k'))
	// Edit the first.
	press(t, p, tea.KeyPressMsg{Code: tea.KeyEnter})
	p.list.editing.(*fakeArea).text = "first fact, edited"
	press(t, p, tea.KeyPressMsg{Code: tea.KeyEnter})
	if ms := memoriesOf(t, q); ms[0].Text != "first fact, edited" {
		t.Fatalf("the edit was not saved: %+v", ms[0])
	}
	// Delete asks first: n keeps it, y deletes it.
	press(t, p, char('d'))
	if got := panelText(p); !strings.Contains(got, "delete") || !strings.Contains(got, "y ") {
		t.Errorf("d does not ask:\n%s", got)
	}
	press(t, p, char('n'))
	if ms := memoriesOf(t, q); len(ms) != 3 {
		t.Fatalf("n deleted: %+v", ms)
	}
	press(t, p, char('d'), char('y'))
	ms := memoriesOf(t, q)
	if len(ms) != 2 || ms[0].Text != "proposed fact" {
		t.Fatalf("d, y did not delete the first: %+v", ms)
	}
	if got := panelText(p); strings.Contains(got, "first fact") || !strings.Contains(got, "Memory (2") {
		t.Errorf("the panel still shows the deleted memory:\n%s", got)
	}
	if res := press(t, p, tea.KeyPressMsg{Code: tea.KeyEscape}); res != Close {
		t.Errorf("esc: %v, want Close", res)
	}
}

// TestMemoryPanelRefusesSecrets: an edit holding the agent's key or a
// token shape is refused, the memory keeps its text, and the editor
// stays open on what the user typed.
func TestMemoryPanelRefusesSecrets(t *testing.T) {
	for _, secret := range []string{
		"the token is ghp_0123456789abcdefghijABCDEFGHIJ0123",
		"key sk-the-agents-own-key-0123456789 here",
	} {
		p, q := memoryPanelOn(t, storage.Memory{Scope: memoryDir, Text: "a fact"})
		press(t, p, char('e'))
		p.list.editing.(*fakeArea).text = secret
		press(t, p, tea.KeyPressMsg{Code: tea.KeyEnter})
		if ms := memoriesOf(t, q); ms[0].Text != "a fact" {
			t.Fatalf("a secret was saved: %q", ms[0].Text)
		}
		if p.list.editing == nil || p.list.editing.Text() != secret {
			t.Fatalf("the refused text was lost (editing %v)", p.list.editing != nil)
		}
		if got := panelText(p); !strings.Contains(got, "refused") {
			t.Errorf("the refusal is not shown:\n%s", got)
		}
	}
}

// TestMemoryPanelShowsFailure: an action the database refuses (the
// memory is gone) is said in the panel, and the list is read again.
func TestMemoryPanelShowsFailure(t *testing.T) {
	p, q := memoryPanelOn(t, storage.Memory{Scope: memoryDir, Text: "soon gone"})
	ms := memoriesOf(t, q)
	if err := q.Remove(context.Background(), ms[0].ID); err != nil {
		t.Fatal(err)
	}
	press(t, p, char('p'))
	got := panelText(p)
	if !strings.Contains(got, "not found") || strings.Contains(got, "soon gone") {
		t.Errorf("a failed pin is not shown, or the list is stale:\n%s", got)
	}
}
