package overlay

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
)

func key(s string) tea.KeyPressMsg {
	switch s {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "alt+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModAlt}
	}
	return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
}

// TestQuestionsTakeKeysOnlyWhenArmedAndFocused: a question shown takes
// no key before its grace ends; armed, typing still goes to the editor
// and only a shortcut answers; Tab focuses it, and Enter within the grace
// of that move is swallowed, after it answers. A question whose turn
// ended is dropped.
func TestQuestionsTakeKeysOnlyWhenArmedAndFocused(t *testing.T) {
	reply := make(chan loop.DoomReply, 1)
	var qs Questions
	qs.Add(NewDoomDialog(DoomAsk{Tool: "bash", Input: "ls", Reply: reply}))
	armed, ok := qs.Show()
	if !ok {
		t.Fatal("no question shown")
	}
	if _, taken := qs.Key(fakeHost{}, key("alt+s")); taken {
		t.Fatal("a key taken before the grace ended")
	}
	qs.Arm(armed)
	if _, taken := qs.Key(fakeHost{}, key("x")); taken {
		t.Fatal("typing taken by an unfocused question")
	}
	if _, taken := qs.Key(fakeHost{}, key("tab")); !taken || !qs.Focused() || !qs.Moving() {
		t.Fatalf("tab: taken %v, focused %v, moving %v", taken, qs.Focused(), qs.Moving())
	}
	if _, taken := qs.Key(fakeHost{}, key("enter")); !taken || qs.Len() != 1 {
		t.Fatalf("enter within the grace: taken %v, %d open", taken, qs.Len())
	}
	qs.Settle(SettledMsg{move: qs.gate.moves})
	if _, taken := qs.Key(fakeHost{}, key("enter")); !taken || qs.Len() != 0 {
		t.Fatalf("enter after the grace: taken %v, %d open", taken, qs.Len())
	}
	if r := <-reply; r != loop.DoomContinue {
		t.Errorf("answered %v, want continue", r)
	}

	done := make(chan struct{})
	qs.Add(NewDoomDialog(DoomAsk{Tool: "bash", Input: "ls", Reply: reply, Done: done}))
	close(done)
	qs.DropAbandoned()
	if qs.Len() != 0 {
		t.Error("a question whose turn ended stays open")
	}
}
