package compact

// The fallback: a compaction that needs no model call, used when summaries
// failed (or on a turn's last attempt). It clears every tool output outside
// the protected tail, then stops sending the oldest turns outside the tail
// until what is sent fits the budget. Nothing is deleted: the dropped turns
// stay in the database, the outputs are marked (compacted_at), and the
// stored summary says what was dropped. It always drops at least the oldest
// turn outside the tail. The user's messages of the dropped
// turns are kept verbatim within the verbatim budget, like a summary's, so
// their rules survive.

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// FallbackNote is how a fallback's summary begins, and the notice the user
// sees: "compacted without a summary: N turns dropped, kept in the
// database".
const FallbackNote = "compacted without a summary: %d turns dropped, kept in the database"

// Fallback is a model-free compaction of a history.
type Fallback struct {
	// Prune are the ids of the tool parts outside the tail to mark
	// compacted (their outputs are sent as message.ClearedOutput).
	Prune []string
	// KeepFrom is the id of the oldest message still sent after the
	// summary (CompactionState.TailFrom); "" when none is.
	KeepFrom string
	// DroppedTurns and DroppedMessages count what is no longer sent.
	DroppedTurns, DroppedMessages int
	// Body is the stored text of the summary message.
	Body string
	// Note is the line shown to the user (FallbackNote).
	Note string
	// TokensAfter estimates what the visible history costs afterwards
	// (summary and kept messages), without system prompt and tools.
	TokensAfter int64
}

// PlanFallback plans a fallback compaction of history (as stored, oldest
// first) whose visible messages should cost at most budget tokens. The tail
// is MakePlan's; the oldest turns are dropped whole (a tool's result lives
// in its call's message, so no pair is split), and the kept messages start
// at a turn. ok is false when there is nothing outside the tail.
func PlanFallback(history []message.Entry, est tokens.Estimator, opt Options, budget int64) (f Fallback, ok bool) {
	if est == nil {
		est = tokens.Chars{}
	}
	p := MakePlan(history, est, opt)
	if len(p.Summarize) == 0 {
		return Fallback{}, false
	}
	v := tokens.VisibleHistory(history)
	// The previous compaction's kept head and tail are stored before its
	// summary: they cannot be kept after a new one, so they are always
	// dropped.
	old := p.Summarize[:len(v.Head)+len(v.Kept)]
	region := pruned(p.Summarize[len(v.Head)+len(v.Kept):], &f.Prune)

	var earlier string
	var candidates []string
	if p.PreviousSummary != nil {
		earlier, candidates = SplitSummary(joinText(p.PreviousSummary.Parts))
	}
	// A turn starts at a user message the user wrote.
	starts := []int{0}
	for i, e := range region {
		if i > 0 && e.Message.Role == message.RoleUser && !e.Message.Synthetic {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(region))
	suffix := make([]int64, len(region)+1)
	for i := len(region) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] + tokens.EstimateEntries(region[i:i+1], est)
	}
	tail := tokens.EstimateEntries(p.Tail, est)
	// The earlier summary is not worth more than half the budget.
	if earlier != "" && int64(est.Count(earlier)) > budget/2 {
		earlier = cutMiddle(earlier, est, max(budget/2, 1))
	}

	for k, cut := range starts {
		last := k == len(starts)-1
		if cut == 0 && len(old) == 0 && !last {
			continue // a fallback drops at least the oldest turn
		}
		dropped := append(append([]message.Entry(nil), old...), region[:cut]...)
		users := append([]string(nil), candidates...)
		for _, e := range dropped {
			if e.Message.Role == message.RoleUser && !e.Message.Synthetic && !e.Message.Summary {
				if t := strings.TrimSpace(joinText(e.Parts)); t != "" {
					users = append(users, t)
				}
			}
		}
		turns := countTurns(dropped)
		note := fmt.Sprintf(FallbackNote, turns)
		text := "[" + note + ". Tool outputs before the last turns were cleared; the turns that were dropped are no longer visible to you, only their user messages below.]"
		if earlier != "" {
			text += "\n\n" + earlier
		}
		body := ComposeSummary(text, selectUserMessages(users, est, min(opt.UserBudget, budget/2)))
		after := summaryCost(body, est) + suffix[cut] + tail
		if after <= budget || last {
			f.Body, f.Note, f.TokensAfter = body, note, after
			f.DroppedTurns, f.DroppedMessages = turns, countSent(dropped)
			if cut < len(region) {
				f.KeepFrom = region[cut].Message.ID
			} else if len(p.Tail) > 0 {
				f.KeepFrom = p.Tail[0].Message.ID
			}
			return f, true
		}
	}
	return f, true // unreachable: the last cut is always taken
}

// pruned returns copies of entries whose completed tool outputs are marked
// cleared, and appends the ids of the parts it marked to ids. Summaries of
// work (message.ToolState.WorkSummary) are kept.
func pruned(entries []message.Entry, ids *[]string) []message.Entry {
	out := make([]message.Entry, len(entries))
	at := time.Unix(1, 0) // any non-zero time marks a part cleared
	for i, e := range entries {
		out[i] = e
		copied := false
		for j, p := range e.Parts {
			if p.Type != message.PartTool || p.Tool == nil || !p.Tool.CompactedAt.IsZero() || p.Tool.WorkSummary() ||
				p.Tool.Status == message.ToolPending || p.Tool.Status == message.ToolRunning || p.Tool.Output == "" {
				continue
			}
			if !copied {
				out[i].Parts = append([]message.Part(nil), e.Parts...)
				copied = true
			}
			st := *p.Tool
			st.CompactedAt = at
			out[i].Parts[j].Tool = &st
			if p.ID != "" {
				*ids = append(*ids, p.ID)
			}
		}
	}
	return out
}

// countTurns counts the turns entries hold: user messages the user wrote,
// and a leading run of other messages as one.
func countTurns(entries []message.Entry) int {
	n := 0
	for i, e := range entries {
		if e.Message.Role == message.RoleUser && !e.Message.Synthetic && !tokens.IsMarker(e) || i == 0 && n == 0 {
			n++
		}
	}
	return n
}

// countSent counts the entries that would have been sent.
func countSent(entries []message.Entry) int {
	n := 0
	for _, e := range entries {
		if !tokens.IsMarker(e) {
			n++
		}
	}
	return n
}

func summaryCost(body string, est tokens.Estimator) int64 {
	return tokens.EstimateEntries([]message.Entry{{
		Message: message.Message{Role: message.RoleAssistant, Summary: true},
		Parts:   []message.Part{{Type: message.PartText, Text: body}},
	}}, est)
}
