// Package recall gives the model back what context management took from
// it: the recall tool searches the session's whole history — the tool
// outputs pruned, the messages summarised away, the full outputs of
// truncated calls — through the history index (storage.SearchSession), and
// fetches the full original text of one reference.
//
// Contract:
//   - recall{query, limit?} returns ranked snippets, each with its
//     reference (the part id), the message id, the tool call id and tool
//     name, when it was written and why the model cannot see it now
//     (pruned, summarised, truncated). Only what is out of sight is listed
//     unless all is set; then what is visible is listed too, marked so.
//   - recall{ref, offset?, limit?} returns the full text of one reference
//     (a part id, or a tool call id), paged by lines with the limits every
//     tool result has (internal/context/truncate): at most 2000 lines and
//     50 KB, with the offset that continues. When the context has less
//     room (tools.ResultRoom), the text is fitted first (fit.go): head and
//     tail, and where the lines left out are; the header gets what is
//     left. A fetch never returns only what the reference is.
//   - Any query is valid (the index takes plain words; see storage). A
//     reference that does not exist, or belongs to another session, is an
//     error result the model reads, never an internal error.
//   - It only reads: it needs no permission and may run beside other
//     read-only calls.
//
// What is visible is decided as the loop's converter decides it
// (tokens.VisibleHistory): messages older than the newest summary that was
// not undone are not sent, except the tail its compaction kept.
package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// Name is the tool's name.
const Name = "recall"

// Limits of a search.
const (
	DefaultLimit = 5
	MaxLimit     = 20
)

// Tool is the recall tool of one session.
type Tool struct {
	Store     *storage.Store
	SessionID string
}

// New returns the recall tool of a session.
func New(st *storage.Store, sessionID string) *Tool {
	return &Tool{Store: st, SessionID: sessionID}
}

var _ tools.Tool = (*Tool)(nil)

// Name implements tools.Tool.
func (*Tool) Name() string { return Name }

// ReadOnly implements tools.Tool: recall changes nothing.
func (*Tool) ReadOnly() bool { return true }

// Description implements tools.Tool.
func (*Tool) Description() string {
	return `Search this session's whole history, including what left your context: cleared tool outputs ("[Old tool result content cleared]"), messages replaced by a summary, full outputs of truncated results.
- recall{query}: the best matches (default 5, at most 20 with limit) as snippets with a ref; only those outside your context unless all is true. Plain words, all must match.
- recall{ref}: the full original text of a match (a ref from a result or a summary, or a tool call id), 2000 lines at a time (offset, limit).
Use it before re-running a command or re-reading a file whose output was cleared, or to recover a detail lost to a summary.`
}

// Parameters implements tools.Tool.
func (*Tool) Parameters() json.RawMessage { return parameters }

// parameters is the schema every request carries.
var parameters = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"Words to search for in the session's history."},` +
	`"limit":{"type":"integer","minimum":1,"description":"With query: the number of matches (default 5, at most 20). With ref: the number of lines (default and maximum 2000)."},` +
	`"all":{"type":"boolean","description":"With query: also list matches still in your context (marked visible)."},` +
	`"ref":{"type":"string","description":"A reference from a recall result or a summary (or a tool call id): returns its full text."},` +
	`"offset":{"type":"integer","minimum":0,"description":"With ref: the first line to show, 1-based (default 1)."}` +
	`},"required":[],"additionalProperties":false}`)

type input struct {
	Query  string `json:"query"`
	Limit  int    `json:"limit"`
	All    bool   `json:"all"`
	Ref    string `json:"ref"`
	Offset int    `json:"offset"`
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	var in input
	if len(call.Input) > 0 {
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return failed("recall", "invalid arguments for recall: %v", err), nil
		}
	}
	in.Query, in.Ref = strings.TrimSpace(in.Query), strings.TrimSpace(in.Ref)
	switch {
	case in.Ref != "" && in.Query != "":
		return failed("recall", "give either query (to search) or ref (to fetch one match), not both"), nil
	case in.Ref != "":
		return t.fetch(ctx, in)
	case in.Query != "":
		return t.search(ctx, in)
	}
	return failed("recall", "recall needs a query (words to search for) or a ref (a match to fetch)"), nil
}

func failed(title, format string, args ...any) tools.Result {
	return tools.Result{Output: fmt.Sprintf(format, args...), Title: title, IsError: true}
}

// Status says whether the model can see a hit now, and if not, why.
type Status string

// The statuses of a hit.
const (
	Visible    Status = "visible"
	Pruned     Status = "pruned"     // a tool output cleared by pruning or a compaction
	Summarised Status = "summarised" // a message before the newest summary
	Truncated  Status = "truncated"  // found only in the part of a tool output the model was not shown
)

// Horizon is where the visible history starts: the newest summary that is
// applied and not undone, and the tail its compaction kept.
type Horizon struct {
	SummaryID string // "" when no summary is in force: everything is visible
	TailFrom  string // the oldest message kept verbatim before the summary
	// HeadUpTo is the newest message a "summarise after here" compaction
	// kept verbatim before its summary: what Before sends up to it is sent.
	HeadUpTo string
	Before   *Horizon
}

// HorizonOf finds the horizon from a session's compaction parts (oldest
// first, storage.SessionCompactions).
func HorizonOf(compactions []message.Part) Horizon {
	for i := len(compactions) - 1; i >= 0; i-- {
		c := compactions[i].Compaction
		if c == nil || c.Rejected || c.SummaryID == "" || !c.UndoneAt.IsZero() {
			continue
		}
		h := Horizon{SummaryID: c.SummaryID, TailFrom: c.TailFrom}
		if c.HeadUpTo != "" {
			before := HorizonOf(compactions[:i])
			h.HeadUpTo, h.Before = c.HeadUpTo, &before
		}
		return h
	}
	return Horizon{}
}

// Sends reports whether a message is sent to the model: it is the summary,
// follows it, is in the kept tail, or in the kept head.
func (h Horizon) Sends(messageID string) bool {
	if h.SummaryID == "" {
		return true
	}
	if h.HeadUpTo != "" && messageID <= h.HeadUpTo && h.Before != nil && h.Before.Sends(messageID) {
		return true
	}
	if h.TailFrom != "" && messageID >= h.TailFrom {
		return true
	}
	return messageID >= h.SummaryID
}

// StatusOf decides what the model sees of a hit: its message not sent
// (summarised), its output cleared (pruned), its match only in the part of
// an output it was not shown (truncated), or visible.
func StatusOf(h storage.Hit, hz Horizon, terms []string) Status {
	if !hz.Sends(h.Part.MessageID) {
		return Summarised
	}
	t := h.Part.Tool
	if t == nil {
		return Visible
	}
	if !t.CompactedAt.IsZero() {
		return Pruned
	}
	if t.Truncated && !mentions(t.Name+"\n"+t.Input+"\n"+t.Output, terms) {
		return Truncated
	}
	return Visible
}

// mentions reports whether text holds every term, ignoring case.
func mentions(text string, terms []string) bool {
	lower := strings.ToLower(text)
	for _, term := range terms {
		if !strings.Contains(lower, term) {
			return false
		}
	}
	return len(terms) > 0
}

// candidates is how many index matches a search reads for each result
// asked for: visible matches and recall's own results are left out.
const candidates = 4

func (t *Tool) search(ctx context.Context, in input) (tools.Result, error) {
	title := "recall " + in.Query
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	terms := storage.QueryTerms(in.Query)
	if len(terms) == 0 {
		return failed(title, "the query %q has no words to search for (letters or digits)", in.Query), nil
	}
	comps, err := t.Store.SessionCompactions(ctx, t.SessionID)
	if err != nil {
		return tools.Result{}, err
	}
	hz := HorizonOf(comps)
	hits, err := t.Store.SearchSession(ctx, t.SessionID, in.Query, limit*candidates)
	if err != nil {
		return tools.Result{}, err
	}
	type shown struct {
		hit    storage.Hit
		status Status
	}
	var list []shown
	visible := 0
	for _, h := range hits {
		if h.Part.Tool != nil && h.Part.Tool.Name == Name {
			continue // what recall itself returned
		}
		st := StatusOf(h, hz, terms)
		if st == Visible {
			visible++
			if !in.All {
				continue
			}
		}
		if len(list) < limit {
			list = append(list, shown{h, st})
		}
	}
	var b strings.Builder
	switch {
	case len(list) == 0 && visible > 0:
		fmt.Fprintf(&b, "No match for %q outside your current context; %d match(es) are still visible to you (recall with all: true lists them).", in.Query, visible)
		return tools.Result{Output: b.String(), Title: title, Metadata: map[string]any{"matches": 0}}, nil
	case len(list) == 0:
		fmt.Fprintf(&b, "No match for %q in this session's history.", in.Query)
		return tools.Result{Output: b.String(), Title: title, Metadata: map[string]any{"matches": 0}}, nil
	case in.All:
		fmt.Fprintf(&b, "%d match(es) for %q in this session's history, best first. Fetch the full text of one with recall{ref}.\n", len(list), in.Query)
	default:
		fmt.Fprintf(&b, "%d match(es) for %q outside your current context, best first. Fetch the full text of one with recall{ref}.\n", len(list), in.Query)
	}
	for i, s := range list {
		fmt.Fprintf(&b, "\n[%d] ref=%s %s\n    %s\n", i+1, s.hit.Part.ID, describe(s.hit, s.status), s.hit.Snippet)
	}
	return tools.Result{Output: b.String(), Title: title, Metadata: map[string]any{"matches": len(list)}}, nil
}

// describe says what a hit is: whose, which tool and call, when, and what
// the model sees of it.
func describe(h storage.Hit, st Status) string {
	var what string
	switch {
	case h.Part.Tool != nil:
		what = fmt.Sprintf("tool=%s call_id=%s", h.Part.Tool.Name, h.Part.Tool.CallID)
	case h.Summary:
		what = "summary"
	case h.Part.Type == message.PartReasoning:
		what = "assistant reasoning"
	default:
		what = string(h.Role) + " text"
	}
	s := fmt.Sprintf("message=%s %s at=%s", h.Part.MessageID, what, h.MessageAt.Format(time.DateTime))
	if st != "" {
		s += " [" + string(st) + "]"
	}
	return s
}

// maxFetchLines bounds a page of recall{ref}: the read tool's page.
const maxFetchLines = 2000

func (t *Tool) fetch(ctx context.Context, in input) (tools.Result, error) {
	title := "recall " + in.Ref
	h, err := t.resolve(ctx, in.Ref)
	if errors.Is(err, storage.ErrNotFound) {
		return failed(title, "no reference %q in this session: use a ref from a recall result or a summary, or a tool call id", in.Ref), nil
	}
	if err != nil {
		return tools.Result{}, err
	}
	header, body := fullText(h)
	limit := in.Limit
	if limit <= 0 || limit > maxFetchLines {
		limit = maxFetchLines
	}
	room := tools.ResultRoom(ctx)
	header = fitHeader(header, room)
	page := Page(body, max(in.Offset, 1), limit, truncate.DefaultMaxBytes-len(header)-noticeSlackBytes)
	text, cutFrom, cutTo := fitPage(page, bodyRoom(header, room))
	out := header + text
	if cutFrom > 0 {
		where := ""
		if t := h.Part.Tool; t != nil && t.FullOutputPath != "" {
			where = fmt.Sprintf(", or read %s with offset=%d", t.FullOutputPath, cutFrom)
		}
		if page.Next > 0 {
			where += fmt.Sprintf(". The text continues after line %d: recall with offset=%d", page.Next-1, page.Next)
		}
		out += fmt.Sprintf("\n\n[Cut to fit the context: lines %d–%d of %d are shown as head and tail; lines %d–%d are left out. To read them, call recall with ref=%q and offset=%d (and a smaller limit)%s.]",
			page.From, page.From+max(truncate.CountLines(page.Text), 1)-1, page.Total, cutFrom, cutTo, h.Part.ID, cutFrom, where)
	} else if page.Next > 0 {
		out += fmt.Sprintf("\n\n[Showing lines %d–%d of %d. To continue, call recall with ref=%q and offset=%d.]",
			page.From, page.Next-1, page.Total, h.Part.ID, page.Next)
	} else if page.From > page.Total && page.Total > 0 {
		out += fmt.Sprintf("\n[offset %d is past the end: the text has %d lines]", page.From, page.Total)
	}
	return tools.Result{Output: out, Title: title, Metadata: map[string]any{"ref": h.Part.ID, "lines": page.Total}}, nil
}

// resolve finds a reference of this session: a part id, else a tool call
// id. A part of another session is not found.
func (t *Tool) resolve(ctx context.Context, ref string) (*storage.Hit, error) {
	h, err := t.Store.GetPart(ctx, ref)
	if err == nil && h.Part.SessionID == t.SessionID {
		return h, nil
	}
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	id, err := t.Store.FindToolCall(ctx, t.SessionID, ref)
	if err != nil {
		return nil, err
	}
	return t.Store.GetPart(ctx, id)
}

// fullText returns a line saying what a part is and its whole text: a
// tool call's input and full output (the saved output of a truncated one).
func fullText(h *storage.Hit) (header, body string) {
	header = fmt.Sprintf("ref=%s %s\n", h.Part.ID, describe(*h, ""))
	t := h.Part.Tool
	if t == nil {
		return header, h.Part.Text
	}
	header += "input: " + t.Input + "\noutput:\n"
	// h.Text is name, input and output, then the saved output if any.
	out := t.RawOutput
	if out == "" {
		out = t.Output
	}
	prefix := t.Name + "\n" + t.Input + "\n" + out
	if rest, ok := strings.CutPrefix(h.Text, prefix+"\n"); ok && rest != "" {
		return header, rest // the saved full output
	}
	return header, out
}

// A PageOf is one page of a text.
type PageOf struct {
	Text  string
	From  int // the first line shown, 1-based
	Next  int // the line that continues; 0 when the page reaches the end
	Total int // lines in the text
}

// Page returns lines from..from+limit-1 of text (1-based), within maxBytes
// (truncate.Apply: whole lines when it can).
func Page(text string, from, limit, maxBytes int) PageOf {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	p := PageOf{From: from, Total: len(lines)}
	if from > len(lines) {
		return p
	}
	end := min(from-1+limit, len(lines))
	chunk := strings.Join(lines[from-1:end], "")
	kept, cut := truncate.Apply(chunk, limit, maxBytes)
	p.Text = kept
	shown := truncate.CountLines(kept)
	if cut && !strings.HasSuffix(kept, "\n") && shown > 1 {
		shown-- // the last line was cut: the next page shows it whole
	}
	if next := from + shown; next <= len(lines) {
		p.Next = next
	}
	return p
}
