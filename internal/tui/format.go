package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/message"
	uitheme "github.com/ctxloop/agent/internal/tui/theme"
)

// formatTokens abbreviates a token count: 950, 12.3K, 128K, 1.05M.
func formatTokens(n int64) string {
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	switch {
	case n < 1000:
		return fmt.Sprintf("%s%d", neg, n)
	case n < 100_000:
		return neg + trimZero(fmt.Sprintf("%.1f", float64(n)/1000)) + "K"
	case n < 1_000_000:
		return fmt.Sprintf("%s%dK", neg, (n+500)/1000)
	default:
		return neg + trimZero(fmt.Sprintf("%.2f", float64(n)/1e6)) + "M"
	}
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// formatDuration shows a duration the way a person reads a stopwatch:
// 0.4s, 12s, 3m05s, 1h02m.
func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// formatCost shows a cost in dollars with enough digits to be non-zero.
func formatCost(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd < 0.01:
		return fmt.Sprintf("$%.4f", usd)
	case usd < 10:
		return fmt.Sprintf("$%.3f", usd)
	default:
		return fmt.Sprintf("$%.2f", usd)
	}
}

// cacheLabel is the status line's prompt-cache figure: the share of the
// last step's input read from the provider's cache, and of the session's
// when it differs ("cache 82% (61% session)"); "" before any step read or
// wrote the cache.
func cacheLabel(last, session message.Usage) string {
	if message.CacheFiguresOf(last, session) == nil {
		return ""
	}
	l := fmt.Sprintf("cache %d%%", last.CachedPercent())
	if s := session.CachedPercent(); session.Input > last.Input && s != last.CachedPercent() {
		l += fmt.Sprintf(" (%d%% session)", s)
	}
	return l
}

// The text helpers live in the theme package (theme/text.go), shared with
// the overlays; these short names keep the chat's render code readable.

func fit(s string, width int) string        { return uitheme.Fit(s, width) }
func pad(s string, width int) string        { return uitheme.Pad(s, width) }
func wrapText(s string, width int) []string { return uitheme.Wrap(s, width) }
func oneLine(s string, width int) string    { return uitheme.OneLine(s, width) }
