package overlay

// The doom-loop question: should a call the model repeated
// loop.DoomThreshold times in a row run again. It answers as every
// question does (questions.go).

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// The choices of a doom-loop question, in button order.
var doomReplies = []loop.DoomReply{loop.DoomContinue, loop.DoomStop, loop.DoomAlwaysAllow}

// doomShortcuts are the modified keys of the choices (indexes of
// doomReplies).
var doomShortcuts = map[string]int{"alt+c": 0, "alt+s": 1, "alt+a": 2}

// DoomAsk is a doom-loop question of the loop: the call repeated, where
// the answer goes, and the turn's end.
type DoomAsk struct {
	Tool, Input string
	Reply       chan<- loop.DoomReply
	Done        <-chan struct{}
}

// DoomDialog asks whether to run a call repeated loop.DoomThreshold times.
type DoomDialog struct {
	ask DoomAsk
	row choiceRow // indexes doomReplies
}

// NewDoomDialog asks a, "continue" highlighted.
func NewDoomDialog(a DoomAsk) *DoomDialog {
	return &DoomDialog{ask: a, row: choiceRow{n: len(doomReplies), shortcuts: doomShortcuts}}
}

func (d *DoomDialog) Abandoned() bool {
	select {
	case <-d.ask.Done:
		return true
	default:
		return false
	}
}

func (d *DoomDialog) Approving() bool { return doomReplies[d.row.sel] != loop.DoomStop }

func (d *DoomDialog) Shortcut(key string) bool { return d.row.shortcut(key) }

func (d *DoomDialog) answer(r loop.DoomReply) (Result, tea.Cmd) {
	d.ask.Reply <- r
	return Close, nil
}

func (d *DoomDialog) Update(h Host, qs *Questions, msg tea.Msg) (Result, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	s := k.String()
	if c := d.row.update(s); c != noChoice {
		return d.answer(doomReplies[c])
	}
	if s == "esc" {
		return Pass, nil
	}
	return Keep, nil
}

func (d *DoomDialog) View(h Host, qs *Questions, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	body := []string{th.WarnText.Render(fmt.Sprintf("%s was called %d times in a row with the same input:", termsafe.Strip(d.ask.Tool), loop.DoomThreshold))}
	in := theme.Wrap(termsafe.Strip(d.ask.Input), inner-2)
	if len(in) > 4 {
		in = append(in[:4], "…")
	}
	for _, l := range in {
		body = append(body, "  "+th.Dim.Render(l))
	}
	body = append(body, "")
	body = append(body, d.row.view(th, []string{"continue · alt+c", "stop the turn · alt+s", "always allow this call · alt+a"}, qs.focused, inner)...)
	footer := qs.footer("typing goes to the editor · tab answers here · alt+c/s/a",
		"←→ choose · enter confirms · esc back to the editor")
	return qs.frame(th, "Doom loop?", theme.ClampBody(body, height, len(body)-1), footer, width)
}
