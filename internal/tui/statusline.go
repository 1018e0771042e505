package tui

// The status line under the editor: the model and title on the left;
// activity, context used, the compaction forecast, cost and the prompt
// cache on the right, the least important dropped first when narrow.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// statusLine is the last line: model and title on the left; context
// used, cost and activity on the right.
func (m *Model) statusLine() string {
	th := m.th
	w := max(20, m.width)
	var right []string
	if act := m.activity(); act != "" {
		right = append(right, act)
	}
	if b := jobsBadge(m.th, m.opt.Loop.Jobs); b != "" {
		right = append(right, b)
	}
	if ctx := contextLabel(th, m.snap); ctx != "" {
		right = append(right, ctx)
	}
	if near := nearLabel(th, m.near, m.snap); near != "" {
		right = append(right, near)
	}
	if used := m.sess.Usage.Input + m.sess.Usage.Output; m.sess.CostUSD > 0 || used > 0 {
		if c := costLabel(m.opt.Loop.Config, sessionModel(m.sess, m.opt.Loop.Config), m.sess.CostUSD); m.sess.CostUSD > 0 || c != formatCost(0) {
			right = append(right, th.Dim.Render(c))
		}
	}
	if c := cacheLabel(m.lastUsage, m.sess.Usage); c != "" {
		right = append(right, th.Dim.Render(c))
	}
	sep := th.Dim.Render(" · ")
	r := strings.Join(right, sep)
	// Drop the least important parts until it fits beside the model.
	for len(right) > 1 && ansi.StringWidth(r) > w-12 {
		right = right[:len(right)-1]
		r = strings.Join(right, sep)
	}
	model := sessionModel(m.sess, m.opt.Loop.Config)
	left := th.StatusModel.Render(termsafe.Strip(model)) + th.Dim.Render(effortLabel(m.opt.Loop.Effort, m.opt.Loop.Config, model)) +
		th.WarnText.Render(planLabel(m.opt.Loop.Mode))
	room := w - ansi.StringWidth(left) - ansi.StringWidth(r) - 3
	if title := termsafe.Strip(m.sess.Title); title != "" && room > 6 {
		left += th.Dim.Render(" · ") + th.StatusBar.Render(oneLine(title, room-3))
	}
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(r) - 1
	if gap < 1 {
		return fit(" "+left+" "+r, w)
	}
	return " " + left + strings.Repeat(" ", gap) + r
}

// activity is the spinner part of the status line.
func (m *Model) activity() string {
	th := m.th
	spin := th.AccentText.Render(spinnerFrames[m.tick.frame%len(spinnerFrames)])
	switch {
	case m.compacting || m.compaction.run != nil:
		return spin + " " + th.WarnText.Render(m.compaction.label(m.busySince)) + th.Dim.Render(" · esc stops")
	case m.busy && m.cp.progress.p != nil:
		return spin + " " + m.cp.progress.view(th) // checkpointline.go
	case m.busy:
		s := spin + " " + sinceLabel(m.busySince)
		if m.retry != nil && m.retry.left > 0 {
			s += th.WarnText.Render(fmt.Sprintf(" · retry in %ds", m.retry.left))
		} else if rate := tokensPerSecond(m.streamStart, m.streamChars); rate >= 1 {
			s += fmt.Sprintf(" · %.0f tok/s", rate)
		}
		return s + th.Dim.Render(" · esc interrupts")
	case m.opening && m.runner == nil && m.openErr == nil:
		return spin + th.Dim.Render(" opening")
	}
	return ""
}

// tokensPerSecond estimates the streaming rate of a step that started
// streaming at start and has streamed chars characters so far (four
// characters a token).
func tokensPerSecond(start time.Time, chars int) float64 {
	if start.IsZero() {
		return 0
	}
	d := time.Since(start)
	if d < 500*time.Millisecond {
		return 0
	}
	return float64(chars) / 4 / d.Seconds()
}

// nearLabel says when compaction is expected ("compaction in ~3 turns"),
// from the loop's last forecast f, while the total of s stays past
// tokens.NearFraction of the compaction point.
func nearLabel(th *theme, f *message.CompactionForecast, s tokens.Reading) string {
	if f == nil || s.CompactAt <= 0 || float64(s.Total) < tokens.NearFraction*float64(s.CompactAt) {
		return ""
	}
	text := "compaction soon"
	switch {
	case f.NextStep:
		text = "compaction at the next step"
	case f.TurnsLeft == 1:
		text = "compaction in ~1 turn"
	case f.TurnsLeft > 1:
		text = fmt.Sprintf("compaction in ~%d turns", f.TurnsLeft)
	}
	return th.WarnText.Render(text)
}

// contextLabel shows the calculator's total of s against the window,
// coloured as it nears the compaction point.
func contextLabel(th *theme, s tokens.Reading) string {
	if s.Window == 0 {
		return ""
	}
	approx := ""
	if s.Basis == tokens.BasisEstimated {
		approx = "~"
	}
	label := fmt.Sprintf("%s%s/%s %d%%", approx, formatTokens(s.Total), formatTokens(s.Window), s.Total*100/s.Window)
	if s.UsageSuspect {
		// The provider's report was not believed (tokens.SuspectReport):
		// show it beside our count, marked.
		label += fmt.Sprintf(" (provider said %s?)", formatTokens(s.ReportedInput))
	}
	limit := s.CompactAt
	if limit <= 0 {
		limit = s.Window - s.OutputReserve
	}
	switch {
	case limit > 0 && s.Total >= limit:
		return th.ErrorText.Render(label)
	case limit > 0 && s.Total*100 >= limit*85:
		return th.WarnText.Render(label)
	}
	return th.StatusBar.Render(label)
}
