package tokens

// This file prices stored history the way the loop's converter
// (internal/loop/convert.go, ToModelMessages and Visible) sends it. The two
// must agree: if the converter changes what it sends, change entryCost and
// VisibleHistory with it.

import (
	"github.com/ctxloop/agent/internal/message"
)

// summaryPreambleTokens approximates the sentence the converter puts before
// a summary ("This conversation continues an earlier one that was
// summarised…", about 100 characters).
const summaryPreambleTokens = 25

// noOutput is what the converter sends for a completed tool call that
// printed nothing.
const noOutput = "(no output)"

// Visible is stored history split the way it is sent to the model.
type Visible struct {
	// Head are the entries a "summarise after here" compaction
	// (CompactionState.HeadUpTo) kept verbatim before its summary: what was
	// sent before it up to and including that message, less the previous
	// summary (the new summary carries it on). Nil otherwise.
	Head []message.Entry
	// Summary is the newest summary message, nil if there is none.
	Summary *message.Entry
	// Kept are the entries stored before the summary that its compaction
	// kept verbatim (CompactionState.TailFrom), sent right after it.
	Kept []message.Entry
	// After are the entries stored after the summary, or the whole history
	// when there is no summary.
	After []message.Entry
}

// Entries returns the visible entries in the order they are sent: kept
// head, summary, kept tail, then the rest.
func (v Visible) Entries() []message.Entry {
	out := make([]message.Entry, 0, 1+len(v.Head)+len(v.Kept)+len(v.After))
	out = append(out, v.Head...)
	if v.Summary != nil {
		out = append(out, *v.Summary)
	}
	out = append(out, v.Kept...)
	return append(out, v.After...)
}

// Len returns the number of visible entries.
func (v Visible) Len() int {
	n := len(v.Head) + len(v.Kept) + len(v.After)
	if v.Summary != nil {
		n++
	}
	return n
}

// VisibleHistory splits history (oldest first) into what is sent to the
// model: messages a rewind took back (Message.Rewound) are not sent, nor
// counted; messages before the newest summary are not sent, except the
// tail its compaction kept; entries that only record a compaction (a user
// message whose parts are all compaction parts) are never sent.
//
// A compaction that kept a head (CompactionState.HeadUpTo, "summarise
// after here") sends, before its summary, what was sent before it (the
// visible history of the entries stored before its marker, less their
// summary) up to and including that message.
//
// It also accepts history already in sent order (kept head, summary, kept
// tail, rest, as Entries returns it), recognising the head as what comes
// before the summary when no compaction marker does, and the kept tail by
// its ids, older than the summary's: VisibleHistory(VisibleHistory(h).Entries())
// splits like VisibleHistory(h).
//
// A summary whose compaction was undone (CompactionState.UndoneAt) is
// neither sent nor a boundary: the history it replaced is sent again.
func VisibleHistory(history []message.Entry) Visible {
	history = withoutRewound(history)
	undone := UndoneSummaries(history)
	sumIdx := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Message.Summary && !undone[history[i].Message.ID] {
			sumIdx = i
			break
		}
	}
	if sumIdx < 0 {
		return Visible{After: withoutMarkers(history, undone)}
	}
	v := Visible{Summary: &history[sumIdx], After: withoutMarkers(history[sumIdx+1:], undone)}
	if c, at := compactionOf(history, sumIdx); c != nil {
		if c.HeadUpTo != "" {
			v.Head = headUpTo(VisibleHistory(history[:at]), c.HeadUpTo)
		}
		if c.TailFrom != "" {
			for i := 0; i < sumIdx; i++ {
				if history[i].Message.ID >= c.TailFrom {
					v.Kept = withoutMarkers(history[i:sumIdx], undone)
					break
				}
			}
		}
		return v
	}
	// Already in sent order (the output of Entries, or of the loop's own
	// Visible): the head precedes the summary, and the kept tail follows
	// it with older ids.
	v.Head = history[:sumIdx]
	if sid := v.Summary.Message.ID; sid != "" {
		k := 0
		for k < len(v.After) && v.After[k].Message.ID != "" && v.After[k].Message.ID < sid {
			k++
		}
		v.Kept, v.After = v.After[:k], v.After[k:]
	}
	return v
}

// headUpTo returns what prev sends before the new summary of a
// compaction that kept a head up to and including the message id: prev's
// head, kept tail and rest, cut after that message (prev's summary is
// carried on by the new one). Nil when the message is not among them.
func headUpTo(prev Visible, id string) []message.Entry {
	sent := make([]message.Entry, 0, len(prev.Head)+len(prev.Kept)+len(prev.After))
	sent = append(append(append(sent, prev.Head...), prev.Kept...), prev.After...)
	for i := range sent {
		if sent[i].Message.ID == id {
			return sent[: i+1 : i+1]
		}
	}
	return nil
}

// compactionOf finds the compaction part that produced the summary at
// history[sumIdx], and the index of its entry: the newest one before it
// naming it, else the newest one before it; nil and -1 when there is none
// (history already in sent order).
func compactionOf(history []message.Entry, sumIdx int) (*message.CompactionState, int) {
	var fallback *message.CompactionState
	at := -1
	for i := sumIdx - 1; i >= 0; i-- {
		for j := range history[i].Parts {
			p := &history[i].Parts[j]
			if p.Type != message.PartCompaction || p.Compaction == nil {
				continue
			}
			if p.Compaction.SummaryID == history[sumIdx].Message.ID {
				return p.Compaction, i
			}
			if fallback == nil {
				fallback, at = p.Compaction, i
			}
		}
	}
	return fallback, at
}

// IsMarker reports whether an entry only records a compaction (a user
// message whose parts are all compaction parts); markers are never sent.
func IsMarker(e message.Entry) bool { return isMarker(&e) }

func isMarker(e *message.Entry) bool {
	if e.Message.Role != message.RoleUser || len(e.Parts) == 0 {
		return false
	}
	for i := range e.Parts {
		if e.Parts[i].Type != message.PartCompaction {
			return false
		}
	}
	return true
}

// withoutRewound returns history without the messages a rewind took
// back, sharing the backing array when there are none (the common case).
func withoutRewound(history []message.Entry) []message.Entry {
	for i := range history {
		if history[i].Message.Rewound() {
			out := make([]message.Entry, 0, len(history))
			out = append(out, history[:i]...)
			for _, e := range history[i+1:] {
				if !e.Message.Rewound() {
					out = append(out, e)
				}
			}
			return out
		}
	}
	return history
}

// UndoneSummaries returns the ids of the summaries whose compaction was
// undone, nil when none was (the common case).
func UndoneSummaries(history []message.Entry) map[string]bool {
	var undone map[string]bool
	for i := range history {
		if history[i].Message.Role != message.RoleUser {
			continue // compaction parts live in user-side markers
		}
		for j := range history[i].Parts {
			if p := &history[i].Parts[j]; p.Type == message.PartCompaction && p.Compaction != nil &&
				!p.Compaction.UndoneAt.IsZero() && p.Compaction.SummaryID != "" {
				c := p.Compaction
				if undone == nil {
					undone = map[string]bool{}
				}
				undone[c.SummaryID] = true
			}
		}
	}
	return undone
}

// withoutMarkers returns entries without compaction markers and undone
// summaries, sharing the backing array when there are none (the common
// case).
func withoutMarkers(entries []message.Entry, undone map[string]bool) []message.Entry {
	skip := func(e *message.Entry) bool {
		return isMarker(e) || (e.Message.Summary && undone[e.Message.ID])
	}
	for i := range entries {
		if skip(&entries[i]) {
			out := make([]message.Entry, 0, len(entries))
			out = append(out, entries[:i]...)
			for j := i + 1; j < len(entries); j++ {
				if !skip(&entries[j]) {
					out = append(out, entries[j])
				}
			}
			return out
		}
	}
	return entries
}

// ToolResult returns the text the model is given as a tool call's result:
// ClearedOutput once pruned, InterruptedOutput for a call that never
// finished, the output otherwise. A summary of work (a subagent's report,
// message.ToolState.WorkSummary) is never cleared, even when an older
// binary marked it.
func ToolResult(t *message.ToolState) string {
	switch {
	case !t.CompactedAt.IsZero() && !t.WorkSummary():
		return message.ClearedOutput
	case t.Status == message.ToolPending || t.Status == message.ToolRunning:
		return message.InterruptedOutput
	case t.Output == "" && t.Status == message.ToolError:
		return message.InterruptedOutput
	case t.Output == "":
		return noOutput
	}
	return t.Output
}

// EstimateEntries returns what these entries cost when sent, in the order
// given (pass VisibleHistory(h).Entries() for a whole stored history):
// text, tool names, arguments and results (the cleared placeholder for
// pruned ones), TokensPerMessage for every chat message (a tool result is a
// message of its own), and no reasoning (not sent back; use
// Calculator.EstimateEntries to follow a model's roundtrip option).
// Compaction markers and assistant messages with nothing to send cost 0.
func EstimateEntries(entries []message.Entry, est Estimator) int64 {
	return estimateEntries(entries, est, false)
}

func estimateEntries(entries []message.Entry, est Estimator, roundtrip bool) int64 {
	var n int64
	for i := range entries {
		n += entryCost(&entries[i], est, roundtrip)
	}
	return n
}

// entryCost prices one entry as the converter sends it.
func entryCost(e *message.Entry, est Estimator, roundtrip bool) int64 {
	var n int64
	fixed, sent := walkCost(e, func(text string, reasoning bool) {
		if !reasoning || roundtrip {
			n += int64(est.Count(text))
		}
	})
	if !sent {
		return 0
	}
	return n + fixed
}

// walkCost takes an entry's price apart: it calls count with every text of
// e an estimator counts when the converter sends it (reasoning marked: it
// is sent only to a model that gets it back), and returns the tokens no
// estimator counts (per-message overhead, images, the summary preamble)
// and whether e is sent at all (an entry that is not costs 0).
func walkCost(e *message.Entry, count func(text string, reasoning bool)) (fixed int64, sent bool) {
	if isMarker(e) {
		return 0, false
	}
	switch {
	case e.Message.Summary:
		textCount(e.Parts, message.PartText, count)
		return summaryPreambleTokens + TokensPerMessage, true
	case e.Message.Role == message.RoleUser:
		if !hasText(e.Parts, message.PartText) && !hasAttachments(e.Parts) {
			return 0, false // the converter skips empty user messages
		}
		textCount(e.Parts, message.PartText, count)
		for i := range e.Parts {
			if e.Parts[i].Type == message.PartFile && e.Parts[i].File != nil {
				count(AttachmentText(e.Parts[i].File), false)
			}
		}
		return ImagesCost(e.Parts) + TokensPerMessage, true
	}
	sent = hasText(e.Parts, message.PartText)
	textCount(e.Parts, message.PartText, count)
	for i := range e.Parts {
		if p := &e.Parts[i]; p.Type == message.PartReasoning && p.Text != "" {
			count(p.Text, true)
		}
	}
	for i := range e.Parts {
		p := &e.Parts[i]
		if p.Type != message.PartTool || p.Tool == nil || p.Tool.CallID == "" {
			continue
		}
		sent = true
		count(p.Tool.Name, false)
		count(p.Tool.Input, false)
		count(ToolResult(p.Tool), false)
		if len(p.Tool.Echo) > 0 {
			count(string(p.Tool.Echo), false) // its vendor fields go with it
		}
		fixed += TokensPerMessage // the result is a message of its own
	}
	if !sent {
		return 0, false // an empty or failed assistant message is not sent
	}
	fixed += toolImagesCost(e.Parts, count) // toolimages.go
	for i := range e.Parts {
		// The message's vendor fields (reasoning_details: OpenRouter's
		// reasoning, sent back whole) are sent with it.
		if p := &e.Parts[i]; p.Type == message.PartStepFinish && p.Step != nil && len(p.Step.Echo) > 0 {
			count(string(p.Step.Echo), false)
		}
	}
	return fixed + TokensPerMessage, true
}

// textCount counts the parts of one type (the converter joins them with a
// newline, which is not worth counting).
func textCount(parts []message.Part, typ message.PartType, count func(string, bool)) {
	for i := range parts {
		if parts[i].Type == typ && parts[i].Text != "" {
			count(parts[i].Text, false)
		}
	}
}

// EntryCost is an entry's price taken apart, to be kept while the entry
// does not change and priced again under any calibration: the raw counts
// of its texts by one estimator, and the tokens no estimator counts.
type EntryCost struct {
	// Fixed is what no estimator counts: per-message overhead, images,
	// the summary preamble.
	Fixed int64
	// Texts and Reasoning are the estimator's counts of the texts sent,
	// one a text: calibration scales (and rounds up) each on its own.
	Texts, Reasoning []int
	// Sent is false for an entry the converter does not send (it costs 0).
	Sent bool
}

// CostOf takes e's price apart with est (an estimator whose counts do not
// change, so that the result can be kept).
func CostOf(e *message.Entry, est Estimator) EntryCost {
	var c EntryCost
	c.Fixed, c.Sent = walkCost(e, func(text string, reasoning bool) {
		if reasoning {
			c.Reasoning = append(c.Reasoning, est.Count(text))
		} else {
			c.Texts = append(c.Texts, est.Count(text))
		}
	})
	return c
}

// Price is what the entry costs when its estimator's counts are scaled by
// ratio (Calibrated; 1 for the plain estimate), with its reasoning when
// roundtrip: the same as EstimateEntries with that estimator.
func (c *EntryCost) Price(ratio float64, roundtrip bool) int64 {
	if !c.Sent {
		return 0
	}
	n := c.Fixed
	for _, t := range c.Texts {
		n += int64(scale(t, ratio))
	}
	if roundtrip {
		for _, t := range c.Reasoning {
			n += int64(scale(t, ratio))
		}
	}
	return n
}

// toolResultCost prices a tool result message.
func toolResultCost(t *message.ToolState, est Estimator) int64 {
	return int64(est.Count(ToolResult(t))) + TokensPerMessage
}

func hasText(parts []message.Part, typ message.PartType) bool {
	for i := range parts {
		if parts[i].Type == typ && parts[i].Text != "" {
			return true
		}
	}
	return false
}
