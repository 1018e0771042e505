package overlay

// The picker of /rewind and /fork: the session's turns, newest first,
// each with its time and what it changed in the files. For a rewind the
// chosen turn then asks what to restore (code and conversation, the
// conversation only, the code only); for a fork the copy keeps the
// conversation up to the end of the chosen turn (or all of it). It does
// neither: the chat reads Choice once it closes.

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// TurnChoice is what the user chose in a TurnPicker: a rewind to before
// Turn with Mode (a message.Rewind* mode), or a fork up to the message
// ForkEnd ("" for all of it).
type TurnChoice struct {
	Turn    loop.Turn
	Mode    string
	Fork    bool
	ForkEnd string
}

// TurnPicker lists the session's turns for /rewind and /fork; for a
// rewind it then asks what to restore.
type TurnPicker struct {
	op    string // rewind or fork
	turns []loop.Turn
	// ends are the ids /fork copies up to, per turn: the last message of
	// the turn ("" for the last turn: everything).
	ends []string
	list *Picker
	// chosen is the turn whose rewind mode is being picked (-1 while
	// listing); mode the highlighted mode.
	chosen int
	mode   int
	// choice is the decision, once decided.
	choice  TurnChoice
	decided bool
}

// rewindModes are the choices of a rewind, in menu order.
var rewindModes = []struct{ mode, label, detail string }{
	{message.RewindBoth, "code and conversation", "restore the files; take back this message and everything after it"},
	{message.RewindConversation, "conversation only", "take back the messages; the files stay as they are"},
	{message.RewindCode, "code only", "restore the files; the conversation stays"},
}

// forkAll is the picker value of /fork's "all of it".
const forkAll = "all"

// NewTurnPicker lists the turns of history (loop.Turns) for op, rewind
// or fork.
func NewTurnPicker(op string, history []message.Entry, turns []loop.Turn) *TurnPicker {
	tp := &TurnPicker{op: op, turns: turns, ends: turnEnds(history, turns), chosen: -1}
	title := "Rewind: take the session back to before a message"
	if op == "fork" {
		title = "Fork: copy the conversation up to the end of a turn into a new session"
	}
	var entries []PickerEntry
	if op == "fork" {
		entries = append(entries, PickerEntry{Value: forkAll, Label: "all of it", Detail: fmt.Sprintf("%d turn%s", len(turns), plural(len(turns)))})
	}
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		entries = append(entries, PickerEntry{
			Value:  strconv.Itoa(i),
			Label:  fmt.Sprintf("%d. %s", t.N, theme.OneLine(termsafe.Strip(t.Text), 200)),
			Detail: turnDetail(t),
		})
	}
	tp.list = NewPicker(title, entries)
	return tp
}

// turnEnds returns, per turn, the id of its last message in the
// conversation as it stands ("" for the last turn).
func turnEnds(history []message.Entry, turns []loop.Turn) []string {
	ends := make([]string, len(turns))
	for i := 0; i+1 < len(turns); i++ {
		next := turns[i+1].MessageID
		for _, e := range history {
			if e.Message.ID >= next {
				break
			}
			if !e.Message.Rewound() {
				ends[i] = e.Message.ID
			}
		}
	}
	return ends
}

// turnDetail is a turn's line in the picker: its time and what it
// changed in the files. Its line counts are the turn's net change, the
// one /diff shows: the sum of its steps' counts when no two steps changed
// the same file (then the sum is the net change); otherwise the sum is
// not the turn's change (a line added and edited again counts twice), and
// the picker has no diff to count, so it names the steps and leaves the
// lines to /diff.
func turnDetail(t loop.Turn) string {
	s := t.At.Local().Format("15:04")
	files := map[string]bool{}
	added, deleted := 0, 0
	again := false // a file changed by a step and then another
	for _, p := range t.Patches {
		for _, f := range p.Files {
			again = again || files[f.Path]
			files[f.Path] = true
		}
		a, d := p.Lines()
		added, deleted = added+a, deleted+d
	}
	n := len(files)
	switch {
	case n == 0:
		return s + " · no file changed"
	case again:
		return fmt.Sprintf("%s · %d file%s changed in %d steps · /diff counts the lines", s, n, plural(n), changingSteps(t.Patches))
	}
	return fmt.Sprintf("%s · %d file%s +%d −%d", s, n, plural(n), added, deleted)
}

// changingSteps counts the patches that changed a file.
func changingSteps(ps []message.PatchState) int {
	k := 0
	for _, p := range ps {
		if len(p.Files) > 0 {
			k++
		}
	}
	return k
}

func (tp *TurnPicker) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if tp.chosen >= 0 {
		if !isKey {
			return Keep, nil
		}
		switch s := k.String(); s {
		case "up", "ctrl+p":
			tp.mode = (tp.mode + len(rewindModes) - 1) % len(rewindModes)
		case "down", "ctrl+n", "tab":
			tp.mode = (tp.mode + 1) % len(rewindModes)
		case "1", "2", "3":
			tp.mode = int(s[0] - '1')
			return tp.decide(TurnChoice{Turn: tp.turns[tp.chosen], Mode: rewindModes[tp.mode].mode})
		case "enter":
			return tp.decide(TurnChoice{Turn: tp.turns[tp.chosen], Mode: rewindModes[tp.mode].mode})
		case "esc":
			tp.chosen = -1
		}
		return Keep, nil
	}
	res, cmd := tp.list.Update(h, msg)
	v, ok := tp.list.Chosen()
	if !ok {
		return res, cmd
	}
	if tp.op == "fork" {
		if v == forkAll {
			return tp.decide(TurnChoice{Fork: true})
		}
		i, _ := strconv.Atoi(v)
		return tp.decide(TurnChoice{Fork: true, ForkEnd: tp.ends[i]})
	}
	tp.chosen, _ = strconv.Atoi(v)
	tp.mode = 0
	tp.list.done = false // back to the list on esc
	return Keep, nil
}

func (tp *TurnPicker) View(h Host, width, height int) []string {
	if tp.chosen < 0 {
		return tp.list.View(h, width, height)
	}
	th := h.Theme()
	inner := max(10, width-4)
	t := tp.turns[tp.chosen]
	body := []string{th.UserBar.Render("▌") + " " + th.UserText.Render(theme.OneLine(termsafe.Strip(t.Text), inner-2))}
	var paths []string
	seen := map[string]bool{}
	for _, later := range tp.turns[tp.chosen:] {
		for _, p := range later.Patches {
			for _, f := range p.Files {
				if !seen[f.Path] {
					seen[f.Path] = true
					paths = append(paths, termsafe.Strip(f.Path))
				}
			}
		}
	}
	if len(paths) == 0 {
		body = append(body, th.Dim.Render("no file changed since this message"))
	} else {
		body = append(body, th.Dim.Render(theme.Fit(fmt.Sprintf("files changed since: %s", strings.Join(paths, ", ")), inner)))
	}
	body = append(body, "")
	for i, c := range rewindModes {
		line := fmt.Sprintf("%d. %-22s %s", i+1, c.label, c.detail)
		if i == tp.mode {
			line = th.Selected.Render(theme.Pad(theme.Fit(line, inner), inner))
		} else {
			line = theme.Fit(line, inner)
		}
		body = append(body, line)
	}
	return theme.Frame(th, fmt.Sprintf("Rewind to before turn %d: restore what?", t.N), theme.ClampBody(body, height, len(body)-1), "↑↓ choose · enter rewind · esc back", width)
}

// decide closes the picker on c.
func (tp *TurnPicker) decide(c TurnChoice) (Result, tea.Cmd) {
	tp.choice, tp.decided = c, true
	return Close, nil
}

// Choice is what the user chose, once Update returned Close on it.
func (tp *TurnPicker) Choice() (TurnChoice, bool) { return tp.choice, tp.decided }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
