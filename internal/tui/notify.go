package tui

// Notifications: when a turn ends or a dialog waits while the terminal is
// not focused, the chat tells the terminal, which shows a desktop
// notification (OSC 9 or OSC 777) or marks the window (the bell). Focus
// comes from the terminal's focus reports (the view asks for them); a
// terminal that sends none counts as focused, and a question then only
// rings the bell, as it always did. The text of a notification is the
// chat's own, never the model's or a tool's, and is stripped of control
// characters before it goes out.
//
// ui.notify auto picks by the terminal (notifyMethod):
//
//	TERM_PROGRAM iTerm.app, WezTerm, ghostty; TERM xterm-kitty, xterm-ghostty  OSC 9
//	TERM foot, foot-extra                                                       OSC 777
//	anything else (tmux and screen included: they pass the bell on)            the bell

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
)

// notifier holds the focus the terminal reported and turns the chat's
// events into notifications. Its zero value never notifies.
type notifier struct {
	method  string // config.NotifyOSC9, NotifyOSC777, NotifyBell or NotifyOff
	blurred bool   // the terminal reported it lost focus
	busy    bool   // a turn ran at the last observe
	// write sends a sequence to the terminal: tea.Raw; tests record it.
	write func(seq string) tea.Cmd
}

func newNotifier(setting string, getenv func(string) string) *notifier {
	return &notifier{method: notifyMethod(setting, getenv("TERM"), getenv("TERM_PROGRAM")), write: rawSeq}
}

func rawSeq(seq string) tea.Cmd { return tea.Raw(seq) }

// notifyMethod is the way to notify for the ui.notify setting, auto
// deciding by the terminal's TERM and TERM_PROGRAM.
func notifyMethod(setting, term, termProgram string) string {
	switch setting {
	case config.NotifyOSC9, config.NotifyOSC777, config.NotifyBell, config.NotifyOff:
		return setting
	case config.NotifyAuto, "":
	default:
		return config.NotifyBell
	}
	switch termProgram {
	case "iTerm.app", "WezTerm", "ghostty":
		return config.NotifyOSC9
	}
	switch term {
	case "xterm-kitty", "xterm-ghostty":
		return config.NotifyOSC9
	case "foot", "foot-extra":
		return config.NotifyOSC777
	}
	return config.NotifyBell
}

// notifySequence is what tells the terminal text by method: control
// characters (and, for OSC 777's fields, semicolons) are dropped from text.
func notifySequence(method, text string) string {
	text = strings.Map(dropControl, text) // histsearch.go
	switch method {
	case config.NotifyOSC9:
		return "\x1b]9;" + text + "\x07"
	case config.NotifyOSC777:
		return "\x1b]777;notify;agent;" + strings.ReplaceAll(text, ";", ",") + "\x07"
	case config.NotifyBell:
		return "\a"
	}
	return ""
}

// reportFocus tells whether the view asks the terminal for focus reports.
func (n *notifier) reportFocus() bool { return n.method != "" && n.method != config.NotifyOff }

// focus takes the terminal's focus report.
func (n *notifier) focus(msg tea.Msg) {
	switch msg.(type) {
	case tea.FocusMsg:
		n.blurred = false
	case tea.BlurMsg:
		n.blurred = true
	}
}

// observe is called after every update with whether a turn runs: the end
// of a turn notifies an unfocused terminal.
func (n *notifier) observe(busy bool) tea.Cmd {
	ended := n.busy && !busy
	n.busy = busy
	if !ended || !n.blurred {
		return nil
	}
	return n.send("agent: the turn ended")
}

// question is what a question opening sends: a notification when the
// terminal is not focused, else the bell; nothing with ui.notify off.
func (n *notifier) question() tea.Cmd {
	if n.blurred {
		return n.send("agent: a question waits for your answer")
	}
	if n.method == config.NotifyOff || n.write == nil {
		return nil
	}
	return n.write("\a")
}

func (n *notifier) send(text string) tea.Cmd {
	seq := notifySequence(n.method, text)
	if seq == "" || n.write == nil {
		return nil
	}
	return n.write(seq)
}

// uiOf is cfg's ui group; without a config, the defaults.
func uiOf(cfg *config.Config) config.UI {
	if cfg == nil {
		return config.UI{Mode: config.UIFullscreen, Notify: config.NotifyAuto}
	}
	return cfg.UI
}
