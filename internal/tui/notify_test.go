package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func TestNotifyMethodByTerminal(t *testing.T) {
	for _, c := range []struct{ setting, term, program, want string }{
		{"auto", "xterm-256color", "iTerm.app", config.NotifyOSC9},
		{"auto", "xterm-256color", "WezTerm", config.NotifyOSC9},
		{"auto", "xterm-ghostty", "ghostty", config.NotifyOSC9},
		{"auto", "xterm-kitty", "", config.NotifyOSC9},
		{"auto", "foot", "", config.NotifyOSC777},
		{"auto", "tmux-256color", "tmux", config.NotifyBell},
		{"auto", "xterm-256color", "Apple_Terminal", config.NotifyBell},
		{"", "", "", config.NotifyBell},
		{"osc777", "xterm-kitty", "", config.NotifyOSC777},
		{"off", "xterm-kitty", "iTerm.app", config.NotifyOff},
	} {
		if got := notifyMethod(c.setting, c.term, c.program); got != c.want {
			t.Errorf("notifyMethod(%q, %q, %q) = %q, want %q", c.setting, c.term, c.program, got, c.want)
		}
	}
}

// TestNotifySequenceStripsControls: nothing but the sequence's own
// framing reaches the terminal, whatever the text holds.
func TestNotifySequenceStripsControls(t *testing.T) {
	text := "done\x1b]52;c;ZXZpbA==\x07\x9b2J;x"
	for _, method := range []string{config.NotifyOSC9, config.NotifyOSC777} {
		seq := notifySequence(method, text)
		inner := seq[2 : len(seq)-1]
		if strings.ContainsAny(inner, "\x1b\x07") {
			t.Errorf("%s: %q carries a control character", method, seq)
		}
	}
	if got := notifySequence(config.NotifyOSC777, "a;b"); got != "\x1b]777;notify;agent;a,b\x07" {
		t.Errorf("osc777 = %q", got)
	}
	if got := notifySequence(config.NotifyOff, "x"); got != "" {
		t.Errorf("off = %q, want nothing", got)
	}
}

// recordNotify makes the model's notifications go to a slice.
func recordNotify(h *harness, method string) *[]string {
	var out []string
	h.m.opt.notify.method = method
	h.m.opt.notify.write = func(seq string) tea.Cmd {
		out = append(out, seq)
		return nil
	}
	return &out
}

// TestNotifyWhenBlurredTurnEnds: the end of a turn while the terminal is
// not focused sends the notification; none once focus is back; the view
// asks for focus reports.
func TestNotifyWhenBlurredTurnEnds(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one"), pt.Text("two")})
	got := recordNotify(h, config.NotifyOSC9)
	if !h.m.View().ReportFocus {
		t.Error("the view does not ask for focus reports")
	}
	h.send(tea.BlurMsg{})
	h.typeText("first")
	h.key("enter")
	h.waitFor("the first turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	if len(*got) != 1 || !strings.HasPrefix((*got)[0], "\x1b]9;") || !strings.Contains((*got)[0], "turn ended") {
		t.Fatalf("notifications after a blurred turn: %q, want one OSC 9", *got)
	}
	h.send(tea.FocusMsg{})
	h.typeText("second")
	h.key("enter")
	h.waitFor("the second turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if len(*got) != 1 {
		t.Errorf("notifications after a focused turn: %q, want none new", *got)
	}
}

// TestNotifyOffAsksNoFocus: ui.notify off asks for no focus reports and
// sends nothing, blurred or not.
func TestNotifyOffAsksNoFocus(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("one")})
	got := recordNotify(h, config.NotifyOff)
	if h.m.View().ReportFocus {
		t.Error("focus reports asked for with ui.notify off")
	}
	h.send(tea.BlurMsg{})
	h.typeText("first")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	if len(*got) != 0 {
		t.Errorf("notifications with ui.notify off: %q", *got)
	}
}

// TestDialogWaitingNotifiesAndFreezesSpinner: a permission dialog opening
// while the terminal is blurred notifies; while it waits the spinner's
// ticks stop.
func TestDialogWaitingNotifiesAndFreezesSpinner(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.ToolCall("c1", "bash", `{"command":"true"}`), pt.Text("fine")})
	got := recordNotify(h, config.NotifyOSC777)
	h.send(tea.BlurMsg{})
	h.typeText("go")
	h.key("enter")
	h.waitScreen("Permission")
	h.waitFor("the spinner to stop", func(m *Model) bool { return !m.tick.ticking })
	frame := h.m.tick.frame
	h.waitFor("the dialog to take its keys", func(m *Model) bool { return m.questions.Armed() })
	if h.m.tick.ticking || h.m.tick.frame != frame {
		t.Errorf("the spinner moved while the dialog waited: frame %d → %d", frame, h.m.tick.frame)
	}
	if len(*got) != 1 || !strings.HasPrefix((*got)[0], "\x1b]777;notify;agent;") {
		t.Fatalf("notifications for the dialog: %q, want one OSC 777", *got)
	}
	h.key("alt+d")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if len(*got) != 2 {
		t.Errorf("notifications: %q, want the dialog's and the turn's end", *got)
	}
}
