package tokens

// Usage sanity. A call's reported input is the calculator's anchor, and so
// the compaction trigger's and the status line's. A provider may report
// wrong (three or ten times too much, a tenth), and one absurd report must
// not move either. So every report is compared with our own count of the
// same request (the request estimate: system prompt, tool schemas, pins
// and the visible history priced by the session's calibrated estimator,
// which no report moved except through the calibration, itself learnt only
// from plausible reports). A report more than SuspectFactor away from it
// either way, by more than SuspectSlackTokens, is suspect: the calculator
// neither anchors on it nor learns from it, and carries on estimating as
// when a call sends no usage; the snapshot carries both figures
// (UsageSuspect, ReportedInput, RequestEstimate) so that /context, the
// status line and `agent context` show them.

import "fmt"

const (
	// SuspectFactor is how far (either way) a reported input may be from
	// our count of the request before it is suspect. Honest providers stay
	// well within it: the calibrated estimate is within a few per cent of
	// OpenAI's tokenizer, and within ~30 % for other models' tokenizers.
	SuspectFactor = 2.0
	// SuspectSlackTokens is the difference below which no report is
	// suspect: on a small request, a provider's rendering of the tool
	// schemas or a hidden system prompt may double the count, and a wrong
	// report of a small request cannot trigger a compaction anyway.
	SuspectSlackTokens int64 = 1024
)

// SuspectReport reports whether a provider's reported input tokens are
// implausible for a request we count at requestEstimate tokens: more than
// SuspectFactor times it or less than its 1/SuspectFactor, and more than
// SuspectSlackTokens away. Without an estimate (0) nothing is suspect.
func SuspectReport(reported, requestEstimate int64) bool {
	if reported <= 0 || requestEstimate <= 0 {
		return false
	}
	diff := reported - requestEstimate
	if diff < 0 {
		diff = -diff
	}
	if diff <= SuspectSlackTokens {
		return false
	}
	ratio := float64(reported) / float64(requestEstimate)
	return ratio > SuspectFactor || ratio < 1/SuspectFactor
}

// WarnUsageSuspect is the warning of a snapshot whose last call's usage
// was suspect.
func WarnUsageSuspect(reported, requestEstimate int64) string {
	return fmt.Sprintf("provider reported %d input tokens for a request we count at %d; report ignored, estimated", reported, requestEstimate)
}
