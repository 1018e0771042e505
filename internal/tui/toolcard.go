package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/diffview"
)

// Lines of a tool's output shown on a collapsed card, and the most shown
// expanded.
const (
	collapsedOutputLines = 4
	collapsedDiffLines   = 12
	expandedOutputLines  = 400
)

// toolItem is a tool call: a header with status, title and duration, and a
// few lines of output (or of the edit's diff), expandable.
type toolItem struct {
	state message.ToolState
	// title is shown until the tool's own title arrives.
	title    string
	expanded bool
	ver      int
	cache    lineCache
}

func (t *toolItem) toggle() bool {
	t.expanded = !t.expanded
	t.ver++
	return true
}

func (t *toolItem) set(st message.ToolState, title string) {
	t.state = st
	if title != "" {
		t.title = title
	}
	t.ver++
}

func (t *toolItem) lines(rc *renderCtx) []string {
	if ls, ok := t.cache.get(rc, t.ver); ok {
		return ls
	}
	th := rc.th
	st := &t.state
	icon, iconStyle := "○", th.Dim
	switch st.Status {
	case message.ToolRunning:
		icon, iconStyle = "◐", th.AccentText
	case message.ToolCompleted:
		icon, iconStyle = "✓", th.OkText
	case message.ToolError:
		icon, iconStyle = "✗", th.ErrorText
	}
	title := st.Title
	if title == "" {
		title = t.title
	}
	if st.Name == taskToolName && st.Title == "" {
		title = taskTitle(st) // taskcard.go
	}
	if title == "" {
		title = st.Name
	}
	title = termsafe.Strip(title)
	name := termsafe.Strip(st.Name)
	if strings.HasPrefix(title, name) {
		title = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(title, name), ":"))
	}
	var right []string
	switch st.Status {
	case message.ToolPending:
		right = append(right, "waiting")
	case message.ToolRunning:
		right = append(right, "running")
	default:
		if !st.StartedAt.IsZero() && !st.EndedAt.IsZero() {
			right = append(right, formatDuration(st.EndedAt.Sub(st.StartedAt)))
		}
	}
	if !st.CompactedAt.IsZero() {
		right = append(right, "pruned")
	}
	if st.Truncated {
		right = append(right, "truncated")
	}
	rightText := strings.Join(right, " · ")
	head := iconStyle.Render(icon) + " " + th.Bold.Render(name)
	avail := rc.width - ansi.StringWidth(head) - len([]rune(rightText)) - 3
	if title != "" && avail > 4 {
		head += " " + th.Text.Render(oneLine(title, avail))
	}
	if rightText != "" {
		gap := rc.width - ansi.StringWidth(head) - len([]rune(rightText))
		head += strings.Repeat(" ", max(1, gap)) + th.Dim.Render(rightText)
	}
	out := []string{fit(head, rc.width)}

	expanded := t.expanded || rc.expandAll
	bodyWidth := rc.width - 4
	var body []string
	var bodyStyle = th.Dim
	more := 0
	switch {
	case st.Status == message.ToolPending || st.Status == message.ToolRunning:
		if st.Progress != "" {
			body = tailLines(wrapText(termsafe.Strip(strings.TrimRight(st.Progress, "\n")), bodyWidth), collapsedOutputLines)
		}
	case taskCollapsed(st, expanded): // taskcard.go
		body = []string{oneLine(taskSummary(st), bodyWidth)}
		more = strings.Count(strings.TrimRight(st.Output, "\n"), "\n") + 1
	case diffOf(st) != "" && st.Status == message.ToolCompleted:
		// Wrapped, numbered, the changed words marked: readable at 60
		// columns (issue 14.9).
		diff := diffview.Render(diffOf(st), bodyWidth, diffview.Auto, th.Diff)
		limit := collapsedDiffLines
		if expanded {
			limit = expandedOutputLines
		}
		if len(diff) > limit {
			more = len(diff) - limit
			diff = diff[:limit]
		}
		for _, l := range diff {
			out = append(out, "    "+l)
		}
	default:
		text := strings.TrimRight(termsafe.Strip(st.Output), "\n")
		if st.Status == message.ToolError {
			bodyStyle = th.ErrorText
		}
		limit := collapsedOutputLines
		if st.Status == message.ToolError {
			limit = collapsedOutputLines + 2
		}
		if expanded {
			limit = expandedOutputLines
		}
		if text != "" {
			body, more = headRows(text, bodyWidth, limit)
		}
	}
	for _, l := range body {
		out = append(out, "    "+bodyStyle.Render(l))
	}
	switch {
	case more > 0 && !expanded:
		out = append(out, "    "+th.Dim.Render(fmt.Sprintf("… %d more lines (click or ctrl+o to expand)", more)))
	case more > 0:
		out = append(out, "    "+th.Dim.Render(fmt.Sprintf("… %d more lines", more)))
	}
	if expanded && st.FullOutputPath != "" {
		out = append(out, "    "+th.Dim.Render(fit("full output: "+termsafe.Strip(st.FullOutputPath), bodyWidth)))
	}
	return t.cache.put(rc, t.ver, append(out, ""))
}

// headRows wraps the first rows of text; more counts what is left (rows
// of a wrapped line, then whole lines), so a huge output costs no more
// than what is shown.
func headRows(text string, width, rows int) (out []string, more int) {
	lines := func(s string) int {
		if s == "" {
			return 0
		}
		return 1 + strings.Count(s, "\n")
	}
	for {
		line, rest, found := strings.Cut(text, "\n")
		if len(out) >= rows {
			return out, lines(text)
		}
		ls := wrapText(line, width)
		if room := rows - len(out); len(ls) > room {
			return append(out, ls[:room]...), len(ls) - room + lines(rest)
		}
		out = append(out, ls...)
		if !found {
			return out, 0
		}
		text = rest
	}
}

func tailLines(ls []string, n int) []string {
	if len(ls) > n {
		return ls[len(ls)-n:]
	}
	return ls
}

// diffOf returns an edit's unified diff from its metadata.
func diffOf(st *message.ToolState) string {
	d, _ := st.Metadata["diff"].(string)
	return d
}
