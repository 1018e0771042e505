package loop

import (
	"testing"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
)

// TestPrunedEnough: an automatic compaction stops after its prune when the
// request now fits; one the user asked for, or an emergency after a
// refusal, goes on (issue 27 item 2).
func TestPrunedEnough(t *testing.T) {
	st, err := compact.NewStrategy("overflow", 0)
	if err != nil {
		t.Fatal(err)
	}
	fits := tokens.Reading{Total: 5090, Window: 16000, OutputReserve: 2000, CompactAt: 14000}
	over := fits
	over.Total = 15444
	for _, tt := range []struct {
		name string
		req  compactRequest
		s    tokens.Reading
		want bool
	}{
		{"automatic, fits after the prune", compactRequest{auto: true}, fits, true},
		{"automatic, still over", compactRequest{auto: true}, over, false},
		{"asked for by the user", compactRequest{reason: compact.ReasonManual}, fits, false},
		{"summarise up to here", compactRequest{auto: true, keepFrom: "m1"}, fits, false},
		{"emergency after a refusal", compactRequest{auto: true, refused: 20000}, fits, false},
	} {
		if got := prunedEnough(tt.req, st, tt.s); got != tt.want {
			t.Errorf("%s: prunedEnough = %v, want %v", tt.name, got, tt.want)
		}
	}
}
