package overlay

// The /context drawer: the calculator's snapshot as a bar and rows, and
// near the compaction point what the compaction and a restore would do.
// It reads nothing itself: the chat passes ContextFacts in as it draws.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// ContextFacts are what /context shows, as the chat knows them now.
type ContextFacts struct {
	// Open: a session is open; else Starting says that nothing was sent
	// yet (a new session, or one opening).
	Open, Starting bool
	Snap           tokens.Reading
	// MCP are the rows of the MCP servers' tools; Preview, what the
	// compaction will do near its point; Restore, what undoing the
	// context management would need.
	MCP, Preview, Restore   []string
	LastUsage, SessionUsage message.Usage
}

// ContextDrawer is the /context overlay.
type ContextDrawer struct{}

// Update closes on esc, enter or q and passes other keys on (InfoKeys).
func (d *ContextDrawer) Update(h Host, msg tea.Msg) (Result, tea.Cmd) {
	return InfoKeys(msg), nil
}

// PercentOf formats a count of tokens as a share of window ("-" when the
// window is unknown).
func PercentOf(window int64) func(n int64) string {
	return func(n int64) string {
		if window == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(window))
	}
}

func (d *ContextDrawer) View(h Host, f ContextFacts, width, height int) []string {
	th := h.Theme()
	s := f.Snap
	inner := max(10, width-4)
	if !f.Open {
		text := "no session is open"
		if f.Starting {
			text = "Nothing sent yet: the session starts with your first message."
		}
		return theme.Frame(th, "Context", []string{th.Dim.Render(text)}, "esc close", width)
	}
	approx := ""
	if s.Basis == tokens.BasisEstimated {
		approx = "~"
	}
	pct := PercentOf(s.Window)
	var body []string
	body = append(body, th.Bold.Render(fmt.Sprintf("Total %s%s of %s tokens (%s)", approx, theme.Commas(s.Total), theme.Commas(s.Window), pct(s.Total)))+
		th.Dim.Render(" · basis "+string(s.Basis)))
	body = append(body, contextBar(th, s, inner)...)
	row := func(style func(...string) string, label string, n int64, how ...string) string {
		r := style("■") + " " + fmt.Sprintf("%-15s %11s  %6s", label, theme.Commas(n), pct(n))
		if len(how) > 0 && how[0] != "" {
			r += "  " + th.Dim.Render(how[0])
		}
		return r
	}
	body = append(body,
		row(th.BarSystem.Render, "system prompt", s.Breakdown.System, s.Labels.System),
	)
	for _, l := range s.Breakdown.PromptLines.Named() {
		body = append(body, "  "+fmt.Sprintf("%-15s %11s  %6s", "of it "+l.Name, theme.Commas(l.Tokens), pct(l.Tokens))+"  "+th.Dim.Render("guidance line"))
	}
	body = append(body,
		row(th.BarTools.Render, "tool schemas", s.Breakdown.Tools, s.Labels.Tools),
	)
	body = append(body, f.MCP...)
	reasoningHow := "not sent back to this model"
	if s.Labels.Reasoning == tokens.LabelEstimated {
		reasoningHow = tokens.LabelEstimated
	}
	body = append(body,
		row(th.BarMessages.Render, "messages", s.Breakdown.Messages, s.Labels.Messages),
		"  "+fmt.Sprintf("%-15s %11s  %6s", "of it reasoning", theme.Commas(s.Breakdown.Reasoning), pct(s.Breakdown.Reasoning))+"  "+th.Dim.Render(reasoningHow),
	)
	if s.Breakdown.Pins > 0 {
		body = append(body, row(th.BarMessages.Render, "pins", s.Breakdown.Pins, s.Labels.Pins))
	}
	if s.Breakdown.Todo > 0 {
		body = append(body, row(th.BarMessages.Render, "todo list", s.Breakdown.Todo, s.Labels.Todo))
	}
	body = append(body,
		row(th.BarFree.Render, "free", s.Free),
		row(th.BarReserve.Render, "output reserve", s.OutputReserve),
	)
	if s.CompactAt > 0 {
		left := s.CompactAt - s.Total
		line := fmt.Sprintf("Compaction at %s tokens (%s)", theme.Commas(s.CompactAt), pct(s.CompactAt))
		if left > 0 {
			line += fmt.Sprintf(", %s to go", theme.Commas(left))
		} else {
			line += ": due before the next call"
		}
		body = append(body, line)
		if len(f.Preview) > 0 {
			body = append(body, th.WarnText.Render("Near the point — what the compaction will do (/compact --preview):"))
			for _, l := range f.Preview {
				body = append(body, "  "+l)
			}
		}
	} else {
		body = append(body, "Automatic compaction is off (/compact runs it; a request the provider refuses for size still compacts, as an emergency)")
	}
	body = append(body, f.Restore...)
	if s.Basis == tokens.BasisActual {
		body = append(body, fmt.Sprintf("Computed: last input %s + last output %s + new since %s", theme.Commas(s.LastInput), theme.Commas(s.LastOutput), theme.Commas(s.NewEstimate)))
	} else {
		body = append(body, fmt.Sprintf("Computed: system %s + tools %s + estimate of the history %s", theme.Commas(s.Breakdown.System), theme.Commas(s.Breakdown.Tools), theme.Commas(s.NewEstimate)))
	}
	if s.EstimateError != nil {
		body = append(body, fmt.Sprintf("Last estimate error: %+.1f%%", 100**s.EstimateError))
	} else {
		body = append(body, th.Dim.Render("Last estimate error: none yet (no call with usage)"))
	}
	if message.CacheFiguresOf(f.LastUsage, f.SessionUsage) != nil {
		body = append(body, fmt.Sprintf("Prompt cache: last step %d%% of its input read from the cache, session %d%%",
			f.LastUsage.CachedPercent(), f.SessionUsage.CachedPercent()))
	} else {
		body = append(body, th.Dim.Render("Prompt cache: nothing read or written yet"))
	}
	for _, w := range s.Warnings {
		body = append(body, th.WarnText.Render("! "+w))
	}
	var wrapped []string
	for _, l := range body {
		if ansi.StringWidth(l) > inner {
			wrapped = append(wrapped, strings.Split(ansi.Wrap(l, inner, " "), "\n")...)
			continue
		}
		wrapped = append(wrapped, l)
	}
	return theme.Frame(th, "Context", theme.ClampBody(wrapped, height, 0), "esc close", width)
}

// contextBar draws the window as a bar of system, tools, messages, free
// and reserve, with the compaction point marked under it.
func contextBar(th *theme.Theme, s tokens.Reading, width int) []string {
	total := max(s.Window, s.Breakdown.System+s.Breakdown.Tools+s.Breakdown.Messages+s.Breakdown.Pins+s.Breakdown.Todo+s.Free+s.OutputReserve)
	if total <= 0 || width < 10 {
		return nil
	}
	segs := []struct {
		n     int64
		ch    string
		style func(...string) string
	}{
		{s.Breakdown.System, "█", th.BarSystem.Render},
		{s.Breakdown.Tools, "█", th.BarTools.Render},
		{s.Breakdown.Messages, "█", th.BarMessages.Render},
		{s.Breakdown.Pins, "▓", th.BarMessages.Render},
		{s.Breakdown.Todo, "▓", th.BarMessages.Render},
		{s.Free, "░", th.BarFree.Render},
		{s.OutputReserve, "▒", th.BarReserve.Render},
	}
	var b strings.Builder
	used := 0
	var acc int64
	for i, sg := range segs {
		acc += sg.n
		end := int(float64(acc) / float64(total) * float64(width))
		if i == len(segs)-1 {
			end = width
		}
		if sg.n > 0 && end == used && used < width {
			end = used + 1 // every non-empty part gets a cell
		}
		if end > used {
			b.WriteString(sg.style(strings.Repeat(sg.ch, end-used)))
			used = end
		}
	}
	out := []string{b.String()}
	if s.CompactAt > 0 && s.CompactAt < total {
		col := int(float64(s.CompactAt) / float64(total) * float64(width))
		col = min(max(col, 0), width-1)
		label := "▲ compaction"
		if col+len([]rune(label)) > width {
			label = "compaction ▲"
			col = max(0, col-len([]rune(label))+1)
		}
		out = append(out, strings.Repeat(" ", col)+th.WarnText.Render(label))
	}
	return out
}
