package compact

import (
	"math"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
)

func TestStrategies(t *testing.T) {
	snap := func(total, window, reserve int64) tokens.Reading {
		return tokens.Reading{Total: total, Window: window, OutputReserve: reserve}
	}
	tests := []struct {
		name       string
		strategy   string
		threshold  float64
		snap       tokens.Reading
		want       bool
		wantReason string
		wantAt     int64
	}{
		{"overflow at the boundary", "overflow", 0, snap(90000, 100000, 10000), false, "", 90000},
		{"overflow one past", "overflow", 0, snap(90001, 100000, 10000), true, ReasonOverflow, 90000},
		{"default is overflow", "", 0, snap(90001, 100000, 10000), true, ReasonOverflow, 90000},
		{"threshold at the boundary", "threshold", 0.8, snap(80000, 100000, 10000), false, "", 80000},
		{"threshold one past", "threshold", 0.8, snap(80001, 100000, 10000), true, ReasonThreshold, 80000},
		{"threshold 0 means 0.8", "threshold", 0, snap(80001, 100000, 10000), true, ReasonThreshold, 80000},
		{"threshold never later than overflow", "threshold", 0.95, snap(90001, 100000, 10000), true, ReasonOverflow, 90000},
		{"threshold past the reserve, boundary", "threshold", 0.95, snap(90000, 100000, 10000), false, "", 90000},
		{"threshold rounds the window fraction", "threshold", 0.7, snap(89600, 128000, 16384), false, "", 89600},
		{"threshold rounds, one past", "threshold", 0.7, snap(89601, 128000, 16384), true, ReasonThreshold, 89600},
		{"manual never", "manual", 0, snap(1<<40, 100000, 10000), false, "", 0},
		{"no window, no decision", "overflow", 0, snap(5000, 0, 0), false, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewStrategy(tt.strategy, tt.threshold)
			if err != nil {
				t.Fatal(err)
			}
			got, reason := s.ShouldCompact(tt.snap)
			if got != tt.want || reason != tt.wantReason {
				t.Errorf("ShouldCompact(total %d) = %v, %q, want %v, %q", tt.snap.Total, got, reason, tt.want, tt.wantReason)
			}
			if at := s.CompactAt(tt.snap.Window, tt.snap.OutputReserve); at != tt.wantAt {
				t.Errorf("CompactAt = %d, want %d", at, tt.wantAt)
			}
		})
	}
}

func TestNewStrategy(t *testing.T) {
	tests := []struct {
		name      string
		threshold float64
		wantName  string
		wantErr   bool
	}{
		{"", 0, StrategyOverflow, false},
		{"overflow", 0.5, StrategyOverflow, false},
		{"threshold", 0.8, StrategyThreshold, false},
		{"threshold", 1, StrategyThreshold, false},
		{"threshold", 1.5, "", true},
		{"threshold", -0.1, "", true},
		{"threshold", math.NaN(), "", true},
		{"manual", 0, StrategyManual, false},
		{"eager", 0, "", true},
	}
	for _, tt := range tests {
		s, err := NewStrategy(tt.name, tt.threshold)
		if (err != nil) != tt.wantErr {
			t.Errorf("NewStrategy(%q, %v) error = %v, want error %v", tt.name, tt.threshold, err, tt.wantErr)
			continue
		}
		if err == nil && s.Name() != tt.wantName {
			t.Errorf("NewStrategy(%q).Name() = %q, want %q", tt.name, s.Name(), tt.wantName)
		}
	}
}

// The calculator shows the strategy's compaction point.
func TestStrategyCompactAtInSnapshot(t *testing.T) {
	s, _ := NewStrategy("threshold", 0.5)
	c := tokens.NewCalculator(tokens.Options{Window: 100000, MaxOutput: 8000, CompactAt: s.CompactAt}, tokens.Chars{})
	if got := c.Reading().CompactAt; got != 50000 {
		t.Errorf("Snapshot().CompactAt = %d, want 50000", got)
	}
}
