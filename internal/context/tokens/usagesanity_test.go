package tokens

import (
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

func TestSuspectReport(t *testing.T) {
	tests := []struct {
		reported, estimate int64
		want               bool
	}{
		{9500, 9500, false},
		{18000, 9500, false}, // within 2×
		{95000, 9500, true},  // ×10
		{28500, 9500, true},  // ×3
		{950, 9500, true},    // ÷10
		{900, 300, false},    // ×3 but only 600 tokens apart: a small request
		{5000, 0, false},     // no estimate: nothing to compare with
	}
	for _, tt := range tests {
		if got := SuspectReport(tt.reported, tt.estimate); got != tt.want {
			t.Errorf("SuspectReport(%d, %d) = %v, want %v", tt.reported, tt.estimate, got, tt.want)
		}
	}
}

// TestSuspectReportMovesNothing: a report ten times our count of the
// request is neither the anchor nor a calibration sample; the snapshot
// shows it beside the estimate, and the next plausible report anchors
// again (issue 27 item 4).
func TestSuspectReportMovesNothing(t *testing.T) {
	c := NewCalculator(Options{Window: 32000, MaxOutput: 4000}, Chars{})
	c.SetFixed(500, 500)
	c.AddText(text(8000))
	before := c.Reading()
	if !c.ObserveRequest(message.Usage{Input: 90000, Output: 50}, before.Total, before.Total) {
		t.Fatal("a ×10 report was not suspect")
	}
	c.AddText(text(50)) // the call's output, as the loop adds it
	s := c.Reading()
	if s.Total != before.Total+50 || s.Basis != BasisEstimated {
		t.Errorf("after a ×10 report: total %d basis %s, want the estimate %d, estimated", s.Total, s.Basis, before.Total+50)
	}
	if !s.UsageSuspect || s.ReportedInput != 90000 || s.RequestEstimate != before.Total {
		t.Errorf("snapshot marks %v reported %d estimate %d", s.UsageSuspect, s.ReportedInput, s.RequestEstimate)
	}
	if s.Calibration != 1 || s.EstimateError != nil {
		t.Errorf("a suspect report moved calibration %v / estimate error %v", s.Calibration, s.EstimateError)
	}
	if len(s.Warnings) == 0 || s.Warnings[len(s.Warnings)-1] != WarnUsageSuspect(90000, before.Total) {
		t.Errorf("warnings %q", s.Warnings)
	}
	// A plausible report anchors as usual and clears the mark.
	if c.ObserveRequest(message.Usage{Input: 9100, Output: 60}, s.Total, s.Total) {
		t.Fatal("a plausible report was suspect")
	}
	s = c.Reading()
	if s.UsageSuspect || s.Basis != BasisActual || s.Total != 9160 {
		t.Errorf("after a plausible report: suspect %v basis %s total %d, want actual 9160", s.UsageSuspect, s.Basis, s.Total)
	}
}

// TestRestoreUsageFlags: a session reopened (or read by `agent context`)
// shows what the live one showed after its newest step: a suspect report
// (not anchored on) or no usage at all.
func TestRestoreUsageFlags(t *testing.T) {
	opt := Options{Window: 128000, MaxOutput: 16384}
	t.Run("suspect", func(t *testing.T) {
		var b builder
		b.user(text(100))
		b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 1200, Output: 10}, 1200))
		b.user(text(4000))
		st := stepPart(message.Usage{Input: 52000, Output: 10}, 5200)
		st.Step.UsageSuspect, st.Step.RequestEstimate = true, 5200
		b.msg(message.RoleAssistant, textPart(text(10)), st)
		s := Restore(opt, Chars{}, 0, 0, b.entries).Reading()
		if !s.UsageSuspect || s.ReportedInput != 52000 || s.RequestEstimate != 5200 || s.Basis != BasisEstimated {
			t.Errorf("suspect %v reported %d estimate %d basis %s", s.UsageSuspect, s.ReportedInput, s.RequestEstimate, s.Basis)
		}
		if s.LastInput != 1200 || s.Total > 6000 {
			t.Errorf("anchored on the suspect step: last input %d total %d", s.LastInput, s.Total)
		}
	})
	t.Run("no usage", func(t *testing.T) {
		var b builder
		b.user(text(100))
		b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{}, 110))
		s := Restore(opt, Chars{}, 0, 0, b.entries).Reading()
		found := false
		for _, w := range s.Warnings {
			found = found || w == WarnNoUsage
		}
		if !found {
			t.Errorf("warnings %q, want %q", s.Warnings, WarnNoUsage)
		}
	})
}
