package compact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// Options bound what a compaction keeps verbatim. Zero fields keep
// nothing; DefaultOptions gives the configured defaults.
type Options struct {
	// TailTurns is how many of the last user turns stay verbatim after the
	// summary (within TailBudget).
	TailTurns int
	// TailBudget caps the tokens of the verbatim tail.
	TailBudget int64
	// UserBudget caps the tokens of the user messages kept verbatim in the
	// summary.
	UserBudget int64
}

// DefaultTailTurns is the number of turns kept verbatim by default.
const DefaultTailTurns = 2

// DefaultOptions returns the defaults for a model: 2 tail turns within a
// quarter of the usable window (window − reserve), user messages within a
// tenth of the window.
func DefaultOptions(window, reserve int64) Options {
	return Options{
		TailTurns:  DefaultTailTurns,
		TailBudget: max(window-reserve, 0) / 4,
		UserBudget: max(window, 0) / 10,
	}
}

// Plan is what a compaction does with the visible history.
type Plan struct {
	// PreviousSummary is the newest summary, if any: the summary request
	// starts from it.
	PreviousSummary *message.Entry
	// Summarize are the entries the new summary must cover, oldest first:
	// the head and the tail the previous compaction kept, then what came
	// after the previous summary up to the new tail (for PlanAfter: what
	// is sent after the chosen message).
	Summarize []message.Entry
	// Tail are the last entries kept verbatim after the new summary
	// (CompactionState.TailFrom is the id of the first). It is bounded by
	// TailBudget and cut at whole messages only — a tool's result lives in
	// the message of its call, so no call loses its result. It prefers to
	// start at a user message, and shrinks down to nothing when even the
	// last turn is over budget, so one huge turn cannot defeat compaction.
	// It never reaches before the previous summary, and never covers the
	// whole history when there is something to summarise.
	Tail []message.Entry
	// UserMessages are what the user wrote in the summarised range (and
	// those the previous summary kept), verbatim, oldest first, for
	// ComposeSummary. They are chosen newest first within UserBudget: a
	// message longer than half the budget is cut in its middle with a note,
	// one that does not fit is skipped so older short rules still can, and
	// repeats are kept once (the newest).
	UserMessages []string
	// Head are the entries kept verbatim before the new summary
	// (CompactionState.HeadUpTo is the id of the last); only PlanAfter
	// keeps one. MakePlan summarises an earlier compaction's head.
	Head []message.Entry
}

// MakePlan splits history (as stored, oldest first) for a compaction. est
// prices the tail and the user messages.
func MakePlan(history []message.Entry, est tokens.Estimator, opt Options) Plan {
	if est == nil {
		est = tokens.Chars{}
	}
	v := tokens.VisibleHistory(history)
	after := v.After
	// Something must be left to summarise.
	minStart := 0
	if len(v.Head)+len(v.Kept) == 0 {
		minStart = 1
	}
	start := tailStart(after, est, opt, minStart)

	p := Plan{PreviousSummary: v.Summary, Tail: after[start:]}
	p.Summarize = make([]message.Entry, 0, len(v.Head)+len(v.Kept)+start)
	p.Summarize = append(p.Summarize, v.Head...)
	p.Summarize = append(p.Summarize, v.Kept...)
	p.Summarize = append(p.Summarize, after[:start]...)

	p.UserMessages = selectUserMessages(userCandidates(v.Summary, p.Summarize), est, opt.UserBudget)
	return p
}

// userCandidates are the user messages a summary may keep word for word,
// oldest first: those the previous summary kept, then those of the range.
func userCandidates(previous *message.Entry, summarize []message.Entry) []string {
	var candidates []string
	if previous != nil {
		_, candidates = SplitSummary(joinText(previous.Parts))
	}
	for _, e := range summarize {
		if e.Message.Role == message.RoleUser && !e.Message.Synthetic && !e.Message.Summary {
			if t := strings.TrimSpace(joinText(e.Parts)); t != "" {
				candidates = append(candidates, t)
			}
		}
	}
	return candidates
}

// tailStart returns the index in after where the verbatim tail starts
// (len(after) for no tail).
func tailStart(after []message.Entry, est tokens.Estimator, opt Options, minStart int) int {
	if opt.TailTurns <= 0 || opt.TailBudget <= 0 || len(after) <= minStart {
		return len(after)
	}
	// suffix[i] is the cost of after[i:].
	suffix := make([]int64, len(after)+1)
	var turns []int
	for i := len(after) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + tokens.EstimateEntries(after[i:i+1], est)
	}
	for i, e := range after {
		if e.Message.Role == message.RoleUser && !e.Message.Synthetic {
			turns = append(turns, i)
		}
	}
	first := 0
	if len(turns) >= opt.TailTurns {
		first = turns[len(turns)-opt.TailTurns]
	} else if len(turns) > 0 {
		first = turns[0]
	}
	first = max(first, minStart)
	// The longest tail that fits, starting at a user message if one does…
	for _, u := range turns {
		if u >= first && suffix[u] <= opt.TailBudget {
			return u
		}
	}
	// …else at any message boundary.
	for i := first; i < len(after); i++ {
		if suffix[i] <= opt.TailBudget {
			return i
		}
	}
	return len(after)
}

// selectUserMessages picks candidates (oldest first) within budget and
// returns them oldest first. The first candidate — the user's original
// request, which no follow-up may replace as "the task" — is picked first;
// then the messages that state standing instructions (isRule), newest
// first; then the rest, newest first. A message longer than half the
// budget is cut in its middle; one that does not fit is skipped so that
// shorter ones still can; repeats are kept once (the newest).
func selectUserMessages(candidates []string, est tokens.Estimator, budget int64) []string {
	if budget <= 0 || len(candidates) == 0 {
		return nil
	}
	perMessage := max(budget/2, 1)
	// The newest copy of each text stands for it.
	newest := make(map[string]int, len(candidates))
	for i, m := range candidates {
		newest[m] = i
	}
	order := []int{newest[candidates[0]]}
	for _, rules := range []bool{true, false} {
		for i := len(candidates) - 1; i >= 0; i-- {
			if newest[candidates[i]] == i && i != order[0] && isRule(candidates[i]) == rules {
				order = append(order, i)
			}
		}
	}
	picked := make([]string, len(candidates))
	var used int64
	for _, i := range order {
		m := candidates[i]
		cost := int64(est.Count(m))
		if cost > perMessage {
			m = cutMiddle(m, est, perMessage)
			cost = int64(est.Count(m))
		}
		if used+cost > budget {
			continue
		}
		used += cost
		picked[i] = m
	}
	var out []string
	for i, m := range picked {
		if m != "" && newest[candidates[i]] == i {
			out = append(out, m)
		}
	}
	return out
}

// ruleWords mark a user message that states a standing instruction.
var ruleWords = []string{"always", "never", "don't", "do not", "must", "rule", "prefer", "avoid", "make sure", "from now on", "instead of"}

// isRule reports whether a user message reads like a standing instruction.
func isRule(text string) bool {
	t := strings.ToLower(text)
	for _, w := range ruleWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// cutMiddle shortens text to about maxTokens by removing its middle (the
// start usually states the request, the end the question), with a note.
func cutMiddle(text string, est tokens.Estimator, maxTokens int64) string {
	total := int64(est.Count(text))
	keep := int(float64(len(text)) * float64(maxTokens) / float64(total))
	for range 8 {
		head := runeBoundary(text, keep*2/3)
		tail := runeBoundary(text, len(text)-(keep-keep*2/3))
		cut := fmt.Sprintf("%s\n[… %d characters omitted …]\n%s",
			text[:head], utf8.RuneCountInString(text[head:tail]), text[tail:])
		if int64(est.Count(cut)) <= maxTokens || keep == 0 {
			return cut
		}
		keep = keep * 9 / 10
	}
	return text[:runeBoundary(text, keep)]
}

// runeBoundary moves i back to the start of a rune.
func runeBoundary(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func joinText(parts []message.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == message.PartText && p.Text != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// EstimateAfter returns what the visible history will cost once this
// compaction is stored: the head, a summary message with summaryBody, then
// the tail.
// Add the system prompt and tool schemas (Reading.Breakdown) for the
// calculator's total, e.g. as Validate's tokensAfter.
func (p Plan) EstimateAfter(summaryBody string, est tokens.Estimator) int64 {
	summary := message.Entry{
		Message: message.Message{Role: message.RoleAssistant, Summary: true},
		Parts:   []message.Part{{Type: message.PartText, Text: summaryBody}},
	}
	return tokens.EstimateEntries(p.Head, est) + tokens.EstimateEntries([]message.Entry{summary}, est) + tokens.EstimateEntries(p.Tail, est)
}
