package tokens

import (
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

func TestRestore(t *testing.T) {
	opt := Options{Window: 128000, MaxOutput: 16384}
	const system, tools = 1000, 2000

	tests := []struct {
		name         string
		history      func(b *builder)
		wantBasis    Basis
		wantIn       int64
		wantOut      int64
		wantNew      int64
		wantErr      *float64
		wantRoundtip bool
	}{
		{
			name:      "empty session",
			history:   func(b *builder) {},
			wantBasis: BasisEstimated,
		},
		{
			name: "no step yet: everything estimated",
			history: func(b *builder) {
				b.user(text(100))
			},
			wantBasis: BasisEstimated, wantNew: 104,
		},
		{
			name: "anchored on the last step; its tool results and later messages are new",
			history: func(b *builder) {
				b.user(text(100))
				b.msg(message.RoleAssistant, textPart(text(10)),
					stepPart(message.Usage{Input: 900, Output: 40}, 1000))
				b.user(text(100))
				b.msg(message.RoleAssistant, textPart(text(5)), toolPart("c1", text(9), text(200)),
					stepPart(message.Usage{Input: 1200, Output: 60, Reasoning: 20}, 1320))
				b.user(text(10))
			},
			wantBasis: BasisActual, wantIn: 1200, wantOut: 40,
			wantNew: (200 + 4) + (10 + 4), wantErr: ptr(0.1),
		},
		{
			// The basis is estimated, as the live calculator's is after a
			// call without usage (WarnNoUsage; issue 27).
			name: "a step without usage is not an anchor",
			history: func(b *builder) {
				b.user(text(100))
				b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 900, Output: 40}, 0))
				b.user(text(50))
				b.msg(message.RoleAssistant, textPart(text(20)), stepPart(message.Usage{}, 0))
			},
			wantBasis: BasisEstimated, wantIn: 900, wantOut: 40, wantNew: (50 + 4) + (20 + 4),
		},
		{
			name: "messages before the summary are ignored, so is the summary's own usage",
			history: func(b *builder) {
				b.user(text(5000))
				b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 90000, Output: 40}, 0))
				b.msg(message.RoleUser, compactionPart(message.CompactionState{Auto: true}))
				sum := b.msg(message.RoleAssistant, textPart(text(300)), stepPart(message.Usage{Input: 95000, Output: 300}, 0))
				sum.Message.Summary = true
				b.user(text(20))
			},
			wantBasis: BasisEstimated, wantNew: (25 + 300 + 4) + (20 + 4),
		},
		{
			name: "the summary's kept tail is part of the estimate",
			history: func(b *builder) {
				b.user(text(5000))
				tail := b.user(text(70))
				marker := b.msg(message.RoleUser, compactionPart(message.CompactionState{TailFrom: tail.Message.ID}))
				sum := b.msg(message.RoleAssistant, textPart(text(300)))
				sum.Message.Summary = true
				marker.Parts[0].Compaction.SummaryID = sum.Message.ID
			},
			wantBasis: BasisEstimated, wantNew: (25 + 300 + 4) + (70 + 4),
		},
		{
			name: "anchored after the summary",
			history: func(b *builder) {
				b.user(text(5000))
				sum := b.msg(message.RoleAssistant, textPart(text(300)), stepPart(message.Usage{Input: 95000, Output: 300}, 0))
				sum.Message.Summary = true
				b.user(text(20))
				b.msg(message.RoleAssistant, textPart(text(30)), stepPart(message.Usage{Input: 3500, Output: 30}, 0))
			},
			wantBasis: BasisActual, wantIn: 3500, wantOut: 30,
		},
		{
			name: "a compaction after the last step: estimated",
			history: func(b *builder) {
				b.user(text(100))
				b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 900, Output: 40}, 720))
				b.msg(message.RoleUser, compactionPart(message.CompactionState{Auto: true}))
			},
			wantBasis: BasisEstimated, wantNew: (100 + 4) + (10 + 4), wantErr: ptr(-0.2),
		},
		{
			name: "a rejected compaction rewrote nothing",
			history: func(b *builder) {
				b.user(text(100))
				b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 900, Output: 40}, 0))
				b.msg(message.RoleUser, compactionPart(message.CompactionState{Auto: true, Rejected: true}))
			},
			wantBasis: BasisActual, wantIn: 900, wantOut: 40,
		},
		{
			name: "outputs pruned after the last step are taken off",
			history: func(b *builder) {
				b.user(text(100))
				old := b.msg(message.RoleAssistant, toolPart("c1", text(9), text(3000)),
					stepPart(message.Usage{Input: 900, Output: 40}, 0))
				b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 4000, Output: 10}, 0))
				old.Parts[0].Tool.CompactedAt = t0.Add(time.Hour)
			},
			wantBasis: BasisActual, wantIn: 4000, wantOut: 10, wantNew: -(3000 - 9),
		},
		{
			name: "reasoning sent back counts in the output",
			history: func(b *builder) {
				b.user(text(100))
				b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 900, Output: 60, Reasoning: 20}, 0))
			},
			wantRoundtip: true,
			wantBasis:    BasisActual, wantIn: 900, wantOut: 60,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b builder
			tt.history(&b)
			o := opt
			o.ReasoningRoundtrip = tt.wantRoundtip
			s := Restore(o, Chars{}, system, tools, b.entries).Reading()
			if s.Basis != tt.wantBasis {
				t.Errorf("Basis = %q, want %q", s.Basis, tt.wantBasis)
			}
			if s.LastInput != tt.wantIn || s.LastOutput != tt.wantOut {
				t.Errorf("LastInput, LastOutput = %d, %d, want %d, %d", s.LastInput, s.LastOutput, tt.wantIn, tt.wantOut)
			}
			if s.NewEstimate != tt.wantNew {
				t.Errorf("NewEstimate = %d, want %d", s.NewEstimate, tt.wantNew)
			}
			wantTotal := tt.wantIn + tt.wantOut + tt.wantNew
			if tt.wantBasis == BasisEstimated && tt.wantIn == 0 {
				wantTotal = system + tools + tt.wantNew
			}
			if s.Total != wantTotal {
				t.Errorf("Total = %d, want %d", s.Total, wantTotal)
			}
			switch {
			case tt.wantErr == nil && s.EstimateError != nil:
				t.Errorf("EstimateError = %v, want nil", *s.EstimateError)
			case tt.wantErr != nil && (s.EstimateError == nil || !approx(*s.EstimateError, *tt.wantErr)):
				t.Errorf("EstimateError = %v, want %v", s.EstimateError, *tt.wantErr)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// A restored calculator carries on like a live one: the next call anchors it.
func TestRestoreThenObserve(t *testing.T) {
	var b builder
	b.user(text(100))
	c := Restore(Options{Window: 100000}, Chars{}, 10, 20, b.entries)
	if got := c.Reading().Total; got != 10+20+104 {
		t.Fatalf("restored Total = %d, want %d", got, 134)
	}
	c.Observe(message.Usage{Input: 150, Output: 5}, 0)
	s := c.Reading()
	if s.Total != 155 || s.Basis != BasisActual {
		t.Errorf("after Observe: Total %d basis %s, want 155 actual", s.Total, s.Basis)
	}
	if s.EstimateError == nil || !approx(*s.EstimateError, (134.0-150)/150) {
		t.Errorf("EstimateError = %v, want %v", s.EstimateError, (134.0-150)/150)
	}
}
