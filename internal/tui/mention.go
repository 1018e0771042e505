package tui

// @file mentions in the editor (issue 17): typing "@" opens a completion
// popup over the directory's files (mention.Index: cached, gitignore-aware,
// refreshed in the background, so a lookup never waits for the disk); tab
// or enter puts the chosen path in, esc dismisses. The mention is resolved
// when the message is sent (the loop attaches the file); each attachment
// shows as a chip under the message, or as an error chip saying why it
// could not be attached.

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/mention"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// mentionSuggestions is how many paths the popup offers.
const mentionSuggestions = 8

// mentionState is the editor's @ completion: the directory's index and
// the last lookup, kept while the query is unchanged. Its zero value is
// ready: the index of the directory is made on first use. It reads the
// editor it is given (value, dismissed, sel) and changes only its
// selection, dismissal and value on a key; dir is workDir's
// ("" for none: no popup).
type mentionState struct {
	index   *mention.Index
	query   string
	matches []string
	ready   bool
}

// indexOf returns the index, making it for dir on first use.
func (st *mentionState) indexOf(dir string) *mention.Index {
	if st.index == nil {
		st.index = mention.NewIndex(dir)
	}
	return st.index
}

// completions returns the paths to offer for the mention being typed at
// the end of ed, if any.
func (st *mentionState) completions(ed *editor, dir string) []string {
	v := ed.value()
	q, ok := mention.Partial(v)
	if !ok || v == ed.dismissed || dir == "" {
		return nil
	}
	index := st.indexOf(dir)
	if st.matches == nil || q != st.query || !st.ready {
		st.matches, st.ready = index.Match(q, mentionSuggestions)
		st.query = q
	}
	return st.matches
}

// key handles the popup's keys; taken is false when the key is not for
// it.
func (st *mentionState) key(ed *editor, dir, s string) (cmd tea.Cmd, taken bool) {
	comps := st.completions(ed, dir)
	if len(comps) == 0 {
		return nil, false
	}
	sel := min(ed.sel, len(comps)-1)
	switch s {
	case "up", "ctrl+p":
		ed.sel = (sel + len(comps) - 1) % len(comps)
	case "down", "ctrl+n":
		ed.sel = (sel + 1) % len(comps)
	case "tab", "enter":
		v := ed.value()
		q, _ := mention.Partial(v)
		path := comps[sel]
		completed := strings.TrimSuffix(v, q) + path
		if !strings.HasSuffix(path, "/") {
			completed += " "
		}
		ed.setValue(completed)
		ed.sel = 0
	case "esc":
		ed.dismissed = ed.value()
	default:
		return nil, false
	}
	return nil, true
}

// mentionPopupLines draws the @ completion popup, the editor's selection
// sel highlighted.
func mentionPopupLines(th *theme, sel int, comps []string, width int) []string {
	sel = min(sel, len(comps)-1)
	var out []string
	for i, p := range comps {
		line := pad(fit(" @"+termsafe.Strip(p), width-2), width-2)
		if i == sel {
			line = th.Selected.Render(line)
		} else {
			line = th.Dim.Render(line)
		}
		out = append(out, " "+line)
	}
	out = append(out, " "+th.Dim.Render(fit("↑↓ choose · tab or enter insert · esc dismiss · attached when sent", width-2)))
	return out
}

// chipItem is an attachment of a user message: a file, a listing, why it
// could not be attached, or the agent's note of the git status (one dim
// line; the status itself is the user's own repository, not news to them).
type chipItem struct {
	f     message.FileState
	cache lineCache
}

func (c *chipItem) toggle() bool { return false }

func (c *chipItem) lines(rc *renderCtx) []string {
	if ls, ok := c.cache.get(rc, 0); ok {
		return ls
	}
	th := rc.th
	name := "@" + termsafe.Strip(c.f.Path)
	var line string
	switch {
	case c.f.Error != "":
		line = th.ErrorText.Render(fit("  ✗ "+name+": "+oneLine(termsafe.Strip(c.f.Error), rc.width), rc.width))
	case c.f.Kind == message.AttachImage:
		line = th.AccentText.Render(fit("  "+imageChip(&c.f), rc.width)) // images.go
	case c.f.Kind == message.AttachEnv:
		line = th.Dim.Render(fit("  "+envChip, rc.width)) // the agent's note, not the user's words: its text is in export
	default:
		what := chipCount(&c.f)
		if c.f.Truncated {
			what += ", truncated"
		}
		line = th.AccentText.Render(fit("  ⎘ "+name, rc.width)) + th.Dim.Render(fit(" · "+what, max(0, rc.width-len(name)-4)))
	}
	return c.cache.put(rc, 0, []string{line, ""})
}

// chipCount says what an attachment holds: "3 lines", "listing, 1 entry".
// An attachment stored without a count is counted from its content: the
// lines of read's output (its truncation notes aside), the lines of ls's
// under its header.
func chipCount(f *message.FileState) string {
	n := f.Count
	if n == 0 {
		text := strings.TrimRight(f.Content, "\n")
		if f.Truncated {
			if i := strings.LastIndex(text, "\n\n"); i >= 0 {
				text = text[:i]
			}
		}
		if text != "" {
			n = strings.Count(text, "\n") + 1
		}
		if f.Kind == message.AttachDir {
			n = max(0, n-1)
		}
	}
	if f.Kind == message.AttachDir {
		if n == 1 {
			return "listing, 1 entry"
		}
		return fmt.Sprintf("listing, %d entries", n)
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// envChip is the line of a git status the agent sent with the message
// (message.AttachEnv).
const envChip = "⎇ git status changed since the session began · sent to the model with this message"

// mentionIndexedMsg: the index finished a walk the popup was waiting for.
type mentionIndexedMsg struct{}

// await returns a command that waits for the index's first walk while a
// mention is typed in ed, so the popup appears when it is done.
func (st *mentionState) await(ed *editor, dir string) tea.Cmd {
	if _, ok := mention.Partial(ed.value()); !ok || dir == "" {
		return nil
	}
	index := st.indexOf(dir)
	if _, ready := index.Paths(); ready {
		return nil
	}
	done := index.Refresh()
	return func() tea.Msg {
		<-done
		return mentionIndexedMsg{}
	}
}

// attachmentItem is the transcript's item for an attachment: a chip, or
// for a !command a bash tool card.
func attachmentItem(f message.FileState) item {
	if f.Kind != message.AttachCommand {
		return &chipItem{f: f}
	}
	input, _ := json.Marshal(map[string]string{"command": f.Path})
	st := message.ToolState{Name: "bash", Status: message.ToolCompleted, Input: string(input), Output: f.Content, Truncated: f.Truncated, Title: "! " + f.Path}
	if f.IsError {
		st.Status = message.ToolError
	}
	return &toolItem{state: st}
}
