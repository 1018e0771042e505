package tokens

// This file decides how much of a stored history a session must read to
// send what the whole of it sends: VisibleHistory of the entries from
// SentFrom's message on equals VisibleHistory of them all. It reads a
// skeleton — the summaries and the messages that carry compaction parts
// (with those parts), in order — so that the caller learns where to start
// before reading a single message's text.

import "github.com/ctxloop/agent/internal/message"

// SentFrom returns the id of the oldest message a history must be read
// from so that VisibleHistory(history from it on) equals
// VisibleHistory(history), given skeleton: every summary message and
// every message holding a compaction part (with at least those parts),
// oldest first. "" means from the start.
//
// The window starts at the newest summary in force, back to its
// compaction's marker and kept tail (TailFrom), back to what a kept head
// (HeadUpTo) needs of the history before the marker (recursively), and
// back to the marker of every undone summary inside it; a summary without
// a marker sends everything before it, so it reads from the start.
func SentFrom(skeleton []message.Entry) string {
	h := withoutRewound(skeleton)
	undone := UndoneSummaries(h)
	sumIdx := -1
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Message.Summary && !undone[h[i].Message.ID] {
			sumIdx = i
			break
		}
	}
	if sumIdx < 0 {
		return ""
	}
	c, at := compactionOf(h, sumIdx)
	if c == nil {
		return ""
	}
	from := h[at].Message.ID
	if c.HeadUpTo != "" {
		prev := SentFrom(h[:at])
		if prev == "" {
			return ""
		}
		from = min(from, prev)
	}
	if c.TailFrom != "" {
		from = min(from, c.TailFrom)
	}
	// An undone summary inside the window is undone by its marker only
	// when the marker is read too.
	for changed := true; changed; {
		changed = false
		for i := range h {
			e := &h[i]
			if e.Message.Role != message.RoleUser || e.Message.ID >= from {
				continue
			}
			for j := range e.Parts {
				p := &e.Parts[j]
				if p.Type == message.PartCompaction && p.Compaction != nil && !p.Compaction.UndoneAt.IsZero() &&
					p.Compaction.SummaryID >= from {
					from, changed = e.Message.ID, true
				}
			}
		}
	}
	return from
}
