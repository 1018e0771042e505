package compact

import (
	"strings"
	"testing"
)

// TestNotWorthSummarising: a manual compaction of a short conversation
// used to ask for a summary longer than what it replaced, log it as
// rejected twice and then drop a turn without any summary (hardening 2,
// item 9c). A range that costs no more than a summary would is not worth
// one, and the reason says so in figures.
func TestNotWorthSummarising(t *testing.T) {
	cases := []struct {
		name string
		p    Preview
		want string // a part of the reason; "" when worth it
	}{
		{"nothing", Preview{Nothing: true}, "nothing before the last turns"},
		{"a short exchange", Preview{SummariseMessages: 2, SummariseTokens: 163}, "2 messages a summary would replace are ~163 tokens"},
		{"just under", Preview{SummariseMessages: 4, SummariseTokens: MinSummaryTokens + 100, UserTokens: 100}, "~356 tokens"},
		{"just over", Preview{SummariseMessages: 4, SummariseTokens: MinSummaryTokens + 101, UserTokens: 100}, ""},
		{"a long one", Preview{SummariseMessages: 40, SummariseTokens: 30000, UserTokens: 2000}, ""},
	}
	for _, c := range cases {
		got := NotWorthSummarising(c.p)
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: %q, want worth summarising", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: %q, want it to say %q", c.name, got, c.want)
		}
	}
}
