package compact

// What a refused request teaches. A context-length error is proof that the
// request was too big, whatever our count said: the provider beats the
// calculator. The next compaction must bring the request below the one
// refused (measured by our estimate of that request), and the session's
// compaction point comes down to the ceiling the refusal implies, so the
// next crossing is a planned compaction rather than another refusal.

// Ceiling returns the largest request, in our estimate's units, that the
// provider will take, learnt from a request we estimated at refused tokens
// and the provider refused, stating limit and prompt (0 when it did not
// say), for a model whose window we believe is window. With both stated,
// our estimate is scaled by limit/prompt; else the ceiling is 90% of the
// refused estimate. A refusal of a request under half the window (or the
// stated limit) teaches nothing credible about sizes (a proxy's odd 400, a
// per-request cap) and gives 0: the compaction it forces is enough.
func Ceiling(refused, limit, prompt, window int64) int64 {
	if refused <= 0 {
		return 0
	}
	if limit > 0 && prompt > limit {
		return refused * limit / prompt
	}
	ref := window
	if limit > 0 && (ref <= 0 || limit < ref) {
		ref = limit
	}
	if refused*2 < ref {
		return 0
	}
	return refused * 9 / 10
}

// LowerPoint returns the compaction point under a learnt ceiling (0: none):
// the ceiling less the output reserve's share of the window, never above
// point. A point of 0 (compaction is manual) stays 0.
func LowerPoint(point, ceiling, window, reserve int64) int64 {
	if point <= 0 || ceiling <= 0 {
		return point
	}
	c := ceiling
	if window > 0 {
		c -= ceiling * min(reserve, window) / window
	}
	return max(min(point, c), 1)
}
