package tui

// The /context overlay: the calculator's snapshot as a bar and rows, and
// near the compaction point what the compaction and a restore would do.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
)

// contextDrawer is the /context overlay: the calculator's snapshot, and
// near the compaction point what the compaction will do (preview, filled
// in by contextPreviewCmd), and what a restore would need (restore,
// filled in by restoreCostCmd).
type contextDrawer struct {
	preview []string
	restore *loop.RestoreCost
}

func (d *contextDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return infoKeys(msg), nil
}

func (d *contextDrawer) view(m *Model, width, height int) []string {
	th := m.th
	s := m.snap
	inner := max(10, width-4)
	if m.runner == nil {
		text := "no session is open"
		if m.fresh || m.opening {
			text = "Nothing sent yet: the session starts with your first message."
		}
		return frameLines(th, "Context", []string{th.dim.Render(text)}, "esc close", width)
	}
	approx := ""
	if s.Basis == tokens.BasisEstimated {
		approx = "~"
	}
	pct := func(n int64) string {
		if s.Window == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(s.Window))
	}
	var body []string
	body = append(body, th.bold.Render(fmt.Sprintf("Total %s%s of %s tokens (%s)", approx, commas(s.Total), commas(s.Window), pct(s.Total)))+
		th.dim.Render(" · basis "+string(s.Basis)))
	body = append(body, contextBar(th, s, inner)...)
	row := func(style func(...string) string, label string, n int64, how ...string) string {
		r := style("■") + " " + fmt.Sprintf("%-15s %11s  %6s", label, commas(n), pct(n))
		if len(how) > 0 && how[0] != "" {
			r += "  " + th.dim.Render(how[0])
		}
		return r
	}
	body = append(body,
		row(th.barSystem.Render, "system prompt", s.Breakdown.System, s.Labels.System),
		row(th.barTools.Render, "tool schemas", s.Breakdown.Tools, s.Labels.Tools),
	)
	body = append(body, mcpContextLines(th, m.opt.MCP, m.opt.Loop.Config, s.Window, pct)...)
	reasoningHow := "not sent back to this model"
	if s.Labels.Reasoning == tokens.LabelEstimated {
		reasoningHow = tokens.LabelEstimated
	}
	body = append(body,
		row(th.barMessages.Render, "messages", s.Breakdown.Messages, s.Labels.Messages),
		"  "+fmt.Sprintf("%-15s %11s  %6s", "of it reasoning", commas(s.Breakdown.Reasoning), pct(s.Breakdown.Reasoning))+"  "+th.dim.Render(reasoningHow),
	)
	if s.Breakdown.Pins > 0 {
		body = append(body, row(th.barMessages.Render, "pins", s.Breakdown.Pins, s.Labels.Pins))
	}
	body = append(body,
		row(th.barFree.Render, "free", s.Free),
		row(th.barReserve.Render, "output reserve", s.OutputReserve),
	)
	if s.CompactAt > 0 {
		left := s.CompactAt - s.Total
		line := fmt.Sprintf("Compaction at %s tokens (%s)", commas(s.CompactAt), pct(s.CompactAt))
		if left > 0 {
			line += fmt.Sprintf(", %s to go", commas(left))
		} else {
			line += ": due before the next call"
		}
		body = append(body, line)
		if len(d.preview) > 0 {
			body = append(body, th.warnText.Render("Near the point — what the compaction will do (/compact --preview):"))
			for _, l := range d.preview {
				body = append(body, "  "+l)
			}
		}
	} else {
		body = append(body, "Automatic compaction is off (/compact runs it; a request the provider refuses for size still compacts, as an emergency)")
	}
	if d.restore != nil {
		body = append(body, restoreLines(*d.restore)...)
	}
	if s.Basis == tokens.BasisActual {
		body = append(body, fmt.Sprintf("Computed: last input %s + last output %s + new since %s", commas(s.LastInput), commas(s.LastOutput), commas(s.NewEstimate)))
	} else {
		body = append(body, fmt.Sprintf("Computed: system %s + tools %s + estimate of the history %s", commas(s.Breakdown.System), commas(s.Breakdown.Tools), commas(s.NewEstimate)))
	}
	if s.EstimateError != nil {
		body = append(body, fmt.Sprintf("Last estimate error: %+.1f%%", 100**s.EstimateError))
	} else {
		body = append(body, th.dim.Render("Last estimate error: none yet (no call with usage)"))
	}
	if message.CacheFiguresOf(m.lastUsage, m.sess.Usage) != nil {
		body = append(body, fmt.Sprintf("Prompt cache: last step %d%% of its input read from the cache, session %d%%",
			m.lastUsage.CachedPercent(), m.sess.Usage.CachedPercent()))
	} else {
		body = append(body, th.dim.Render("Prompt cache: nothing read or written yet"))
	}
	for _, w := range s.Warnings {
		body = append(body, th.warnText.Render("! "+w))
	}
	var wrapped []string
	for _, l := range body {
		if ansi.StringWidth(l) > inner {
			wrapped = append(wrapped, strings.Split(ansi.Wrap(l, inner, " "), "\n")...)
			continue
		}
		wrapped = append(wrapped, l)
	}
	return frameLines(th, "Context", clampBody(wrapped, height, 0), "esc close", width)
}

// contextBar draws the window as a bar of system, tools, messages, free
// and reserve, with the compaction point marked under it.
func contextBar(th *theme, s tokens.Reading, width int) []string {
	total := max(s.Window, s.Breakdown.System+s.Breakdown.Tools+s.Breakdown.Messages+s.Breakdown.Pins+s.Free+s.OutputReserve)
	if total <= 0 || width < 10 {
		return nil
	}
	segs := []struct {
		n     int64
		ch    string
		style func(...string) string
	}{
		{s.Breakdown.System, "█", th.barSystem.Render},
		{s.Breakdown.Tools, "█", th.barTools.Render},
		{s.Breakdown.Messages, "█", th.barMessages.Render},
		{s.Breakdown.Pins, "▓", th.barMessages.Render},
		{s.Free, "░", th.barFree.Render},
		{s.OutputReserve, "▒", th.barReserve.Render},
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
		out = append(out, strings.Repeat(" ", col)+th.warnText.Render(label))
	}
	return out
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
