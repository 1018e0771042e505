package tokens

import (
	"math"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestInputLimit: a model whose input cap is below window − reserve
// compacts at the cap (the strategy's margin applied to the window the cap
// leaves), and Free is the room below it.
func TestInputLimit(t *testing.T) {
	threshold := func(window, reserve int64) int64 { // compact.Threshold{0.8}
		return min(int64(math.Round(0.8*float64(window))), window-reserve)
	}
	tests := []struct {
		name          string
		opt           Options
		wantCompactAt int64
		wantLimit     *int64
		wantFree      int64 // with a total of 100000
	}{
		{"gpt-5: 272K of a 400K window", Options{Window: 400000, MaxOutput: 128000, InputLimit: 272000},
			272000, ptr[int64](272000), 172000},
		{"threshold keeps its margin below the cap", Options{Window: 400000, MaxOutput: 128000, InputLimit: 272000, CompactAt: threshold},
			243200, ptr[int64](272000), 172000},
		{"a cap above window − reserve changes nothing", Options{Window: 128000, MaxOutput: 16384, InputLimit: 120000},
			128000 - 16384, ptr[int64](120000), 128000 - 16384 - 100000},
		{"no cap", Options{Window: 128000, MaxOutput: 16384},
			128000 - 16384, nil, 128000 - 16384 - 100000},
		{"manual never compacts", Options{Window: 400000, InputLimit: 272000, CompactAt: func(int64, int64) int64 { return 0 }},
			0, ptr[int64](272000), 172000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCalculator(tt.opt, Chars{})
			c.Observe(message.Usage{Input: 100000}, 0)
			s := c.Reading()
			if s.CompactAt != tt.wantCompactAt {
				t.Errorf("CompactAt = %d, want %d", s.CompactAt, tt.wantCompactAt)
			}
			if (s.InputLimit == nil) != (tt.wantLimit == nil) || (s.InputLimit != nil && *s.InputLimit != *tt.wantLimit) {
				t.Errorf("InputLimit = %v, want %v", s.InputLimit, tt.wantLimit)
			}
			if s.Free != tt.wantFree {
				t.Errorf("Free = %d, want %d", s.Free, tt.wantFree)
			}
			if s.Window != tt.opt.Window {
				t.Errorf("Window = %d: the window stays the model's", s.Window)
			}
		})
	}
}

// TestSnapshotCompactionWindow: what a strategy sees of a window capped by
// the input limit.
func TestSnapshotCompactionWindow(t *testing.T) {
	for _, tt := range []struct {
		window, reserve int64
		limit           *int64
		want            int64
	}{
		{400000, 32000, ptr[int64](272000), 304000},
		{128000, 16384, ptr[int64](200000), 128000},
		{128000, 16384, nil, 128000},
	} {
		s := Reading{Window: tt.window, OutputReserve: tt.reserve, InputLimit: tt.limit}
		if got := s.CompactionWindow(); got != tt.want {
			t.Errorf("CompactionWindow(%d, %d, %v) = %d, want %d", tt.window, tt.reserve, tt.limit, got, tt.want)
		}
		if got := s.Usable(); got != tt.want-tt.reserve {
			t.Errorf("Usable(%d, %d, %v) = %d, want %d", tt.window, tt.reserve, tt.limit, got, tt.want-tt.reserve)
		}
	}
}

// TestPruneSavingIsCalibrated: a prune's saving is a raw estimate; taken
// off a total anchored on real usage it is scaled by the session's
// calibration like any new text, live and restored alike. Unscaled, with a
// calibration of 2, half the cleared outputs stayed in the total.
func TestPruneSavingIsCalibrated(t *testing.T) {
	var b builder
	b.user(text(100))
	old := b.msg(message.RoleAssistant, toolPart("c1", text(9), text(30000)),
		stepPart(message.Usage{Input: 61000, Output: 40}, 0))
	step := b.msg(message.RoleAssistant, textPart(text(10)), stepPart(message.Usage{Input: 62000, Output: 10}, 0))
	step.Parts[1].Step.Calibration = 2
	old.Parts[0].Tool.CompactedAt = t0.Add(time.Hour)
	saved := int64(30000 - Chars{}.Count(message.ClearedOutput)) // what prune.Pass reports

	// Live: the calculator anchored on the call, then the prune.
	c := NewCalculator(Options{Window: 128000}, Chars{})
	c.cal = Calibration{ratio: 2, samples: 1}
	c.Observe(message.Usage{Input: 62000, Output: 10}, 0)
	if got := c.RemoveEstimate(saved); got != 2*saved {
		t.Errorf("RemoveEstimate(%d) = %d, want %d", saved, got, 2*saved)
	}
	s := c.Reading()
	if want := 62010 - 2*saved; s.Total != want {
		t.Errorf("live total after the prune = %d, want %d", s.Total, want)
	}

	// Restored from the same history: the same total.
	r := Restore(Options{Window: 128000}, Chars{}, 0, 0, b.entries).Reading()
	if r.Total != s.Total {
		t.Errorf("restored total %d, live %d", r.Total, s.Total)
	}
}
