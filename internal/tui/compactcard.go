package tui

// Compaction, made visible. While a compaction runs the status line says
// "compacting · summarising N messages" with the elapsed time (from the
// loop's EventCompacting). When it is done the conversation gets one
// line: tokens before → after, why, and the model that wrote the summary;
// the summary itself expands on demand (ctrl+o on the card, or a click),
// rendered as Markdown, the verbatim user messages as quotes rather than
// the raw tags the model reads.

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// compactRun is a compaction under way.
type compactRun struct {
	messages int
	since    time.Time
}

// compactions is the chat's track of compactions: the one under way
// (EventCompacting: run), and the newest card (last), which the other
// half of a compaction (its state, its summary) completes. Its zero value
// has neither. It adds cards to the chat view it is given.
type compactions struct {
	run  *compactRun
	last *compactionItem
}

// compactionItem is the one-line card of a compaction and its summary.
type compactionItem struct {
	state    *message.CompactionState // nil until EventCompacted
	model    string                   // the model that wrote the summary
	text     string                   // the summary as stored
	body     *textItem                // text for display, as Markdown
	expanded bool
	ver      int
	cache    lineCache
}

func (c *compactionItem) toggle() bool {
	c.expanded = !c.expanded
	c.ver++
	return true
}

// setSummary sets the summary text.
func (c *compactionItem) setSummary(text string) {
	if text == c.text {
		return
	}
	c.text = text
	c.body = newTextItem(summaryMarkdown(text), true)
	c.ver++
}

// summaryMarkdown turns a stored summary into Markdown for people: the
// user messages kept word for word become quotes, without their tags.
func summaryMarkdown(body string) string {
	summary, users := compact.SplitSummary(body)
	if len(users) == 0 {
		return summary
	}
	var b strings.Builder
	b.WriteString(summary)
	b.WriteString("\n\n**What you wrote, kept word for word:**\n")
	for _, u := range users {
		b.WriteString("\n")
		for _, l := range strings.Split(strings.TrimRight(u, "\n"), "\n") {
			b.WriteString("> " + l + "\n")
		}
	}
	return b.String()
}

func (c *compactionItem) head(rc *renderCtx) string {
	th := rc.th
	text := "context compacted"
	if s := c.state; s != nil {
		switch {
		case s.Emergency:
			text = compact.EmergencyLabel
		case s.Auto:
			text += " automatically"
		}
		if s.Reason != "" && s.Reason != "manual" && !s.Emergency {
			text += " (" + s.Reason + ")"
		}
		text += fmt.Sprintf(": %s → %s tokens", formatTokens(s.TokensBefore), formatTokens(s.TokensAfter))
		if s.Note != "" {
			text += " · " + oneLine(termsafe.Strip(s.Note), 60)
		}
		if s.Focus != "" {
			text += " · focus: " + oneLine(termsafe.Strip(s.Focus), 30)
		}
	}
	if c.model != "" {
		text += " · " + termsafe.Strip(c.model)
	}
	hint := ""
	if c.text != "" {
		hint = " · ctrl+o: summary"
		if c.expanded || rc.expandAll {
			hint = " · ctrl+o: hide"
		}
	}
	return fit(th.InfoText.Render("≡ ")+th.Dim.Render(text)+th.Faint.Render(hint), rc.width)
}

func (c *compactionItem) lines(rc *renderCtx) []string {
	if !(c.expanded || rc.expandAll) || c.body == nil {
		if ls, ok := c.cache.get(rc, c.ver); ok {
			return ls
		}
		return c.cache.put(rc, c.ver, []string{c.head(rc), ""})
	}
	// Expanded: the body renders (and caches) itself.
	return append([]string{c.head(rc)}, c.body.lines(rc)...)
}

// card returns the card a summary or a compaction belongs to:
// the last one, while it still waits for that half, or a new one.
func (cs *compactions) card(chat *chatView, needState bool) *compactionItem {
	if c := cs.last; c != nil && (needState && c.state == nil || !needState && c.text == "") {
		return c
	}
	c := &compactionItem{}
	cs.last = c
	chat.add(c)
	return c
}

// done applies a compaction's state: a rejected one is a warning; an
// accepted one completes its card.
func (cs *compactions) done(chat *chatView, c *message.CompactionState) {
	cs.run = nil
	if c.Rejected {
		why := "the summary would not shrink the context"
		if c.Error != "" {
			why = oneLine(termsafe.Strip(c.Error), 80)
		}
		chat.add(&noticeItem{kind: noticeWarn, text: fmt.Sprintf("compaction %s: %s (%s → %s tokens); pruning and truncation carry on",
			cmp.Or(c.Outcome, "rejected"), why, formatTokens(c.TokensBefore), formatTokens(c.TokensAfter))})
		return
	}
	card := cs.card(chat, true)
	st := *c
	card.state = &st
	card.ver++
}

// summaryArrived applies a summary message (and its text when known);
// parts maps the summary to its card.
func (cs *compactions) summaryArrived(chat *chatView, parts map[string]item, msg *message.Message, text string) {
	card := cs.card(chat, false)
	card.model = msg.Model
	parts["summary:"+msg.ID] = card
	if text != "" {
		card.setSummary(text)
	}
	card.ver++
}

// label is the status line's activity while a compaction runs (since
// busySince when no run is known).
func (cs *compactions) label(busySince time.Time) string {
	label := "compacting"
	since := busySince
	if r := cs.run; r != nil {
		since = r.since
		if r.messages > 0 {
			label += fmt.Sprintf(" · summarising %d message%s", r.messages, plural(r.messages))
		}
	}
	return label + " · " + sinceLabel(since)
}
