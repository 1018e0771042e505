package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// TestStatusLineForecastsCompaction: past 90% of the compaction point the
// status line says when compaction is expected, beside the gauge, until
// the context falls below it again.
func TestStatusLineForecastsCompaction(t *testing.T) {
	m := offlineModel(t)
	m.snap = tokens.Reading{Total: 26000, Window: 32768, OutputReserve: 4096, CompactAt: 28672}
	feed(m, message.Event{Type: message.EventCompactionNear, Forecast: &message.CompactionForecast{
		Total: 26000, CompactAt: 28672, TurnsLeft: 3, Text: "compaction in about 3 turns"}})
	if line := ansi.Strip(m.statusLine()); !strings.Contains(line, "79% · compaction in ~3 turns") {
		t.Errorf("status line = %q", line)
	}
	feed(m, message.Event{Type: message.EventCompactionNear, Forecast: &message.CompactionForecast{
		Total: 27000, CompactAt: 28672, NextStep: true, Text: "compaction at the next step"}})
	if line := ansi.Strip(m.statusLine()); !strings.Contains(line, "compaction at the next step") {
		t.Errorf("status line = %q", line)
	}

	feed(m, message.Event{Type: message.EventCompacted, Compaction: &message.CompactionState{Auto: true, TokensBefore: 27000, TokensAfter: 6000}})
	m.snap.Total = 6000
	if line := ansi.Strip(m.statusLine()); strings.Contains(line, "compaction") {
		t.Errorf("after the compaction, status line = %q", line)
	}

	// A forecast whose total has fallen below 90% (a prune) is not shown.
	feed(m, message.Event{Type: message.EventCompactionNear, Forecast: &message.CompactionForecast{
		Total: 26000, CompactAt: 28672, TurnsLeft: 3, Text: "compaction in about 3 turns"}})
	m.snap.Total = 20000
	if line := ansi.Strip(m.statusLine()); strings.Contains(line, "compaction") {
		t.Errorf("below 90%%, status line = %q", line)
	}
}
