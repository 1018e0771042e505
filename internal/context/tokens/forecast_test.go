package tokens

import "testing"

func TestForecastCompaction(t *testing.T) {
	tests := []struct {
		name       string
		turnStarts []int64 // totals at the start of the last turns, oldest first
		total      int64
		lastStep   int64
		want       Forecast
	}{
		{"steady growth", []int64{50000, 60000, 70000, 80000}, 91000, 2000, Forecast{TurnsLeft: 1}},
		{"five turns of room", []int64{82000, 84000, 86000, 88000}, 90000, 500, Forecast{TurnsLeft: 5}},
		{"a remainder is a whole turn more", []int64{84000, 87000}, 92000, 500, Forecast{TurnsLeft: 3}},
		{"only the last few turns count", []int64{0, 1000, 80000, 84000, 88000, 92000}, 93000, 500, Forecast{TurnsLeft: 2}},
		{"the next step crosses", []int64{80000, 85000}, 95000, 6000, Forecast{NextStep: true}},
		{"already past", []int64{80000, 90000}, 101000, 0, Forecast{NextStep: true}},
		{"growth since a compaction only", []int64{95000, 20000, 60000}, 91000, 0, Forecast{TurnsLeft: 1}},
		{"no history: no estimate", nil, 91000, 500, Forecast{}},
		{"one turn only: no estimate", []int64{91000}, 91000, 500, Forecast{}},
		{"no growth: no estimate", []int64{91000, 91000}, 91000, 0, Forecast{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ForecastCompaction(tt.turnStarts, tt.total, tt.lastStep, 100000)
			if got != tt.want {
				t.Errorf("ForecastCompaction = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestForecastText(t *testing.T) {
	for _, tt := range []struct {
		f    Forecast
		want string
	}{
		{Forecast{NextStep: true}, "compaction at the next step"},
		{Forecast{TurnsLeft: 1}, "compaction in about 1 turn"},
		{Forecast{TurnsLeft: 4}, "compaction in about 4 turns"},
		{Forecast{}, "compaction soon"},
	} {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.f, got, tt.want)
		}
	}
}

// TestNearCompaction: a warning once per crossing of 90% of the point.
func TestNearCompaction(t *testing.T) {
	const at = 100000
	warned := false
	var warnings []int64
	for _, total := range []int64{50000, 89999, 90000, 95000, 99000, 40000, 60000, 92000, 93000} {
		var warn bool
		warn, warned = NearCompaction(warned, total, at)
		if warn {
			warnings = append(warnings, total)
		}
	}
	if len(warnings) != 2 || warnings[0] != 90000 || warnings[1] != 92000 {
		t.Errorf("warned at %v, want [90000 92000]", warnings)
	}
	if warn, _ := NearCompaction(false, 99000, 0); warn {
		t.Error("warned with automatic compaction off")
	}
}
