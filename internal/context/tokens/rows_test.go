package tokens

import (
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestRowsAreLabelledAndReasoningHasARow: every row of the breakdown says
// how it was obtained, and reasoning sent back to a model that takes it
// has a row of its own (part of the messages), zero for other models
// (issue 27 item 9).
func TestRowsAreLabelledAndReasoningHasARow(t *testing.T) {
	var b builder
	b.user(text(100))
	b.msg(message.RoleAssistant, message.Part{Type: message.PartReasoning, Text: text(300)}, textPart(text(10)),
		stepPart(message.Usage{Input: 1200, Output: 320, Reasoning: 300}, 1200))
	for _, tt := range []struct {
		roundtrip     bool
		wantReasoning int64
		wantLabel     string
	}{
		{true, 300, LabelEstimated},
		{false, 0, LabelActual},
	} {
		opt := Options{Window: 128000, MaxOutput: 16384, ReasoningRoundtrip: tt.roundtrip}
		s := Restore(opt, Chars{}, 500, 400, b.entries).Reading()
		if s.Breakdown.Reasoning != tt.wantReasoning || s.Labels.Reasoning != tt.wantLabel {
			t.Errorf("roundtrip %v: reasoning %d %q, want %d %q", tt.roundtrip, s.Breakdown.Reasoning, s.Labels.Reasoning, tt.wantReasoning, tt.wantLabel)
		}
		want := Labels{Total: LabelActual, System: LabelEstimated, Tools: LabelEstimated, Messages: LabelBackCalculated, Pins: LabelEstimated, Todo: LabelEstimated, Reasoning: tt.wantLabel}
		if s.Basis != BasisActual || s.Labels != want {
			t.Errorf("roundtrip %v: basis %s labels %+v, want %+v", tt.roundtrip, s.Basis, s.Labels, want)
		}
	}
	// Estimated basis: the messages are estimated, not back-calculated.
	s := NewCalculator(Options{Window: 32000}, Chars{}).Reading()
	if s.Labels.Total != LabelEstimated || s.Labels.Messages != LabelEstimated {
		t.Errorf("estimated basis: labels %+v", s.Labels)
	}
}
