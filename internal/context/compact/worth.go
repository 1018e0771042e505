package compact

// Whether a summary is worth asking for. A summary costs at least its
// fixed sections plus the user's own messages it keeps word for word
// (ComposeSummary), so a range that costs no more than that cannot be made
// smaller by summarising it: the summary would be rejected (Validate) and
// only the model's time and the user's money spent. A compaction the user
// asks for says so instead of trying; an automatic one, which runs because
// the context is full, does not ask (its range is never this small).

import "fmt"

// MinSummaryTokens is the least a written summary is expected to cost:
// six short sections (goal, instructions, done, files, state, next steps)
// of a line or two each.
const MinSummaryTokens = 256

// NotWorthSummarising says why summarising the range of a plan (its
// Preview) would not make the conversation smaller, "" when it would: the
// range must cost more than MinSummaryTokens plus the user's messages the
// summary keeps.
func NotWorthSummarising(p Preview) string {
	if p.Nothing || p.SummariseMessages == 0 {
		return "nothing before the last turns, which a compaction keeps word for word"
	}
	floor := MinSummaryTokens + p.UserTokens
	if p.SummariseTokens > floor {
		return ""
	}
	return fmt.Sprintf("the %d messages a summary would replace are ~%d tokens, no more than the summary itself would take (~%d)",
		p.SummariseMessages, p.SummariseTokens, floor)
}
