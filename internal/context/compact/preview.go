package compact

// The preview: what a compaction would do with the history now, computed
// without any model call (`/compact --preview`, `agent compact --dry-run`,
// and /context near the compaction point). The caller runs the same prune
// pass a compaction runs first, marks its parts on a copy (MarkPruned),
// makes the plan from that copy and summarises it here, so the preview's
// figures are the compaction's own: the range it summarises, the tail it
// keeps, the user messages it keeps word for word.

import (
	"errors"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// Preview is a plan's figures.
type Preview struct {
	// SummariseMessages and SummariseTokens are the range the summary
	// replaces (the previous summary's kept tail included).
	SummariseMessages int   `json:"summarise_messages"`
	SummariseTokens   int64 `json:"summarise_tokens"`
	// TailMessages and TailTokens are the messages kept verbatim after the
	// summary; TailFrom is the id of the first ("" for none).
	TailMessages int    `json:"tail_messages"`
	TailTokens   int64  `json:"tail_tokens"`
	TailFrom     string `json:"tail_from,omitempty"`
	// UserMessages are what the user wrote, kept word for word in the
	// summary; UserTokens estimates them.
	UserMessages []string `json:"user_messages"`
	UserTokens   int64    `json:"user_tokens"`
	// Nothing is set when there is nothing to summarise.
	Nothing bool `json:"nothing"`
}

// PreviewOf returns plan's figures, priced by est.
func PreviewOf(plan Plan, est tokens.Estimator) Preview {
	if est == nil {
		est = tokens.Chars{}
	}
	p := Preview{
		SummariseMessages: len(plan.Summarize),
		SummariseTokens:   tokens.EstimateEntries(plan.Summarize, est),
		TailMessages:      len(plan.Tail),
		TailTokens:        tokens.EstimateEntries(plan.Tail, est),
		UserMessages:      append([]string{}, plan.UserMessages...),
		Nothing:           len(plan.Summarize) == 0,
	}
	if len(plan.Tail) > 0 {
		p.TailFrom = plan.Tail[0].Message.ID
	}
	for _, u := range plan.UserMessages {
		p.UserTokens += int64(est.Count(u))
	}
	return p
}

// MarkPruned returns a copy of history in which the tool parts named in
// ids are marked compacted at at, as a prune would mark them; history
// itself is not changed (its parts are copied where they differ).
func MarkPruned(history []message.Entry, ids []string, at time.Time) []message.Entry {
	out := append([]message.Entry(nil), history...)
	if len(ids) == 0 {
		return out
	}
	marked := make(map[string]bool, len(ids))
	for _, id := range ids {
		marked[id] = true
	}
	for i := range out {
		var parts []message.Part
		for j, p := range out[i].Parts {
			if !marked[p.ID] || p.Tool == nil {
				continue
			}
			if parts == nil {
				parts = append([]message.Part(nil), out[i].Parts...)
			}
			st := *p.Tool
			st.CompactedAt = at
			parts[j].Tool = &st
		}
		if parts != nil {
			out[i].Parts = parts
		}
	}
	return out
}

// ErrNotInRange is returned by PlanUpTo for a message that is not sent
// after the newest summary (already summarised, or unknown).
var ErrNotInRange = errors.New("the message is not after the newest summary")

// PlanUpTo is MakePlan for "summarise up to here": everything sent before
// the message keepFrom is summarised, keepFrom and everything after it
// stays verbatim whatever its size (the user chose it). The user messages
// kept word for word are chosen as MakePlan chooses them.
func PlanUpTo(history []message.Entry, est tokens.Estimator, opt Options, keepFrom string) (Plan, error) {
	if est == nil {
		est = tokens.Chars{}
	}
	v := tokens.VisibleHistory(history)
	start := -1
	for i, e := range v.After {
		if e.Message.ID == keepFrom {
			start = i
		}
	}
	if start < 0 {
		return Plan{}, ErrNotInRange
	}
	// MakePlan with no tail of its own, then the chosen tail.
	opt.TailTurns = 0
	full := MakePlan(history, est, opt)
	cut := len(v.Head) + len(v.Kept) + start
	p := Plan{PreviousSummary: full.PreviousSummary, Summarize: full.Summarize[:cut], Tail: v.After[start:]}
	p.UserMessages = selectUserMessages(userCandidates(v.Summary, p.Summarize), est, opt.UserBudget)
	return p, nil
}

// PlanAfter is the plan for "summarise after here": what is sent up to
// and including the message keepTo (an earlier compaction's head and kept
// tail included) stays verbatim before the new summary, whatever its
// size (the user chose it); the summary covers the previous summary and
// everything sent after keepTo, and no tail is kept. The head ends at a
// whole message, so every tool call in it keeps its result (a result
// lives in the message of its call). The user messages kept word for word
// are chosen from the summarised range as MakePlan chooses them.
func PlanAfter(history []message.Entry, est tokens.Estimator, opt Options, keepTo string) (Plan, error) {
	if est == nil {
		est = tokens.Chars{}
	}
	v := tokens.VisibleHistory(history)
	sent := make([]message.Entry, 0, len(v.Head)+len(v.Kept)+len(v.After))
	sent = append(append(append(sent, v.Head...), v.Kept...), v.After...)
	end := -1
	for i, e := range sent {
		if e.Message.ID == keepTo {
			end = i + 1
		}
	}
	if end < 0 {
		return Plan{}, ErrNotInRange
	}
	p := Plan{PreviousSummary: v.Summary, Head: sent[:end:end], Summarize: sent[end:]}
	p.UserMessages = selectUserMessages(userCandidates(v.Summary, p.Summarize), est, opt.UserBudget)
	return p, nil
}
