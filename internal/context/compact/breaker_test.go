package compact

import (
	"errors"
	"strings"
	"testing"
)

// TestGiveUpNamesWhatDoesNotFit: the conversation is blamed only when the
// fixed part (system prompt, tools, pins) fits the limit on its own.
func TestGiveUpNamesWhatDoesNotFit(t *testing.T) {
	cause := errors.New("still 9000 tokens")
	for _, tc := range []struct {
		fixed       Fixed
		limit       int64
		fixedTooBig bool
	}{
		{Fixed{System: 3000, Tools: 2000}, 8000, false},
		{Fixed{System: 6000, Tools: 2000}, 8000, true},
		{Fixed{System: 5000, Tools: 2000, Pins: 1500}, 8000, true},
		{Fixed{System: 9000}, 0, false}, // no limit known
	} {
		err := GiveUp(3, cause, tc.fixed, tc.limit)
		if !errors.Is(err, ErrAttemptsSpent) || errors.Is(err, ErrFixedTooBig) != tc.fixedTooBig {
			t.Errorf("%+v under %d: %v", tc.fixed, tc.limit, err)
		}
		if blames := strings.Contains(err.Error(), "the conversation"); blames == tc.fixedTooBig {
			t.Errorf("%+v under %d blames the conversation %v: %v", tc.fixed, tc.limit, blames, err)
		}
	}
}
