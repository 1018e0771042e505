package compact

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// history builds stored entries with sortable ids, named for the tests.
type history struct {
	entries []message.Entry
}

// Ids are unique across the tests (which do not run in parallel) so that
// entryName can name any entry.
var (
	lastID    int
	entryName = map[string]string{}
)

func (h *history) add(role message.Role, name string, parts ...message.Part) *message.Entry {
	lastID++
	id := fmt.Sprintf("m%06d", lastID)
	entryName[id] = name
	h.entries = append(h.entries, message.Entry{
		Message: message.Message{ID: id, Role: role},
		Parts:   parts,
	})
	return &h.entries[len(h.entries)-1]
}

// words makes a text of n tokens under chars/4.
func words(n int) string { return strings.Repeat("abcd", n) }

func (h *history) user(name string, tokens int) *history {
	h.add(message.RoleUser, name, message.Part{Type: message.PartText, Text: name + ":" + words(tokens)})
	return h
}

func (h *history) userText(name, text string) *history {
	h.add(message.RoleUser, name, message.Part{Type: message.PartText, Text: text})
	return h
}

func (h *history) cont() *history {
	e := h.add(message.RoleUser, "continue", message.Part{Type: message.PartText, Text: ContinuePrompt})
	e.Message.Synthetic = true
	return h
}

func (h *history) assistant(name string, toolTokens int) *history {
	h.add(message.RoleAssistant, name,
		message.Part{Type: message.PartText, Text: "ok"},
		message.Part{Type: message.PartTool, Tool: &message.ToolState{
			CallID: "call_" + name, Name: "read", Status: message.ToolCompleted, Input: "{}", Output: words(toolTokens)}})
	return h
}

// summary appends a compaction marker and a summary message keeping the
// tail from the message named tailFrom ("" for none).
func (h *history) summary(body, tailFrom string) *history {
	var tail string
	for _, e := range h.entries {
		if entryName[e.Message.ID] == tailFrom && tailFrom != "" {
			tail = e.Message.ID
		}
	}
	h.add(message.RoleUser, "marker", message.Part{Type: message.PartCompaction,
		Compaction: &message.CompactionState{TailFrom: tail}})
	markerIdx := len(h.entries) - 1
	s := h.add(message.RoleAssistant, "S", message.Part{Type: message.PartText, Text: body})
	s.Message.Summary = true
	h.entries[markerIdx].Parts[0].Compaction.SummaryID = s.Message.ID
	return h
}

func names(entries []message.Entry) string {
	var out []string
	for _, e := range entries {
		out = append(out, entryName[e.Message.ID])
	}
	return strings.Join(out, " ")
}

func TestMakePlanTail(t *testing.T) {
	tests := []struct {
		name          string
		history       *history
		opt           Options
		wantSummarize string
		wantTail      string
	}{
		{
			name:          "last two turns kept",
			history:       new(history).user("u1", 10).assistant("a1", 10).user("u2", 10).assistant("a2", 10).user("u3", 10).assistant("a3", 10),
			opt:           Options{TailTurns: 2, TailBudget: 1000},
			wantSummarize: "u1 a1", wantTail: "u2 a2 u3 a3",
		},
		{
			name:          "a huge last turn leaves no tail",
			history:       new(history).user("u1", 10).assistant("a1", 10).user("u2", 10).assistant("a2", 100000),
			opt:           Options{TailTurns: 2, TailBudget: 10000},
			wantSummarize: "u1 a1 u2 a2", wantTail: "",
		},
		{
			name:          "a huge older turn: the last turn alone",
			history:       new(history).user("u1", 10).assistant("a1", 10).user("u2", 10).assistant("a2", 100000).user("u3", 10).assistant("a3", 10),
			opt:           Options{TailTurns: 2, TailBudget: 10000},
			wantSummarize: "u1 a1 u2 a2", wantTail: "u3 a3",
		},
		{
			name: "a huge step inside the last turn: cut at a message boundary after it",
			history: new(history).user("u1", 10).assistant("a1", 10).
				user("u2", 10).assistant("a2", 100000).assistant("a3", 100).assistant("a4", 100),
			opt:           Options{TailTurns: 2, TailBudget: 10000},
			wantSummarize: "u1 a1 u2 a2", wantTail: "a3 a4",
		},
		{
			name:          "something is always left to summarise",
			history:       new(history).user("u1", 10).assistant("a1", 10).user("u2", 10).assistant("a2", 10),
			opt:           Options{TailTurns: 5, TailBudget: 100000},
			wantSummarize: "u1 a1", wantTail: "u2 a2",
		},
		{
			name:          "one turn: the tail starts after its user message",
			history:       new(history).user("u1", 10).assistant("a1", 10).assistant("a2", 10),
			opt:           Options{TailTurns: 2, TailBudget: 100000},
			wantSummarize: "u1", wantTail: "a1 a2",
		},
		{
			name:          "a synthetic continue does not start a turn",
			history:       new(history).user("u1", 10).assistant("a1", 10).user("u2", 10).assistant("a2", 10).cont().assistant("a3", 10),
			opt:           Options{TailTurns: 1, TailBudget: 100000},
			wantSummarize: "u1 a1", wantTail: "u2 a2 continue a3",
		},
		{
			name:          "no tail turns, no tail",
			history:       new(history).user("u1", 10).assistant("a1", 10),
			opt:           Options{TailBudget: 100000},
			wantSummarize: "u1 a1", wantTail: "",
		},
		{
			name: "after a summary: its kept tail is summarised, the new tail is after it",
			history: new(history).user("u0", 10).assistant("a0", 10).user("u1", 10).assistant("a1", 10).
				summary("old summary", "u1").user("u2", 10).assistant("a2", 10),
			opt:           Options{TailTurns: 2, TailBudget: 100000},
			wantSummarize: "u1 a1", wantTail: "u2 a2",
		},
		{
			name: "the new tail never reaches into the previous kept tail",
			history: new(history).user("u0", 10).assistant("a0", 10).user("u1", 10).assistant("a1", 10).
				summary("old summary", "u1").cont().assistant("a2", 10),
			opt:           Options{TailTurns: 2, TailBudget: 100000},
			wantSummarize: "u1 a1", wantTail: "continue a2",
		},
		{
			name: "after a summary without tail: the first message after it is summarised",
			history: new(history).user("u0", 10).assistant("a0", 10).
				summary("old summary", "").cont().assistant("a1", 10).assistant("a2", 10),
			opt:           Options{TailTurns: 2, TailBudget: 100000},
			wantSummarize: "continue", wantTail: "a1 a2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MakePlan(tt.history.entries, tokens.Chars{}, tt.opt)
			if got := names(p.Summarize); got != tt.wantSummarize {
				t.Errorf("Summarize = %q, want %q", got, tt.wantSummarize)
			}
			if got := names(p.Tail); got != tt.wantTail {
				t.Errorf("Tail = %q, want %q", got, tt.wantTail)
			}
			if cost := tokens.EstimateEntries(p.Tail, tokens.Chars{}); cost > tt.opt.TailBudget {
				t.Errorf("Tail costs %d > budget %d", cost, tt.opt.TailBudget)
			}
			// The same plan from history already in sent order.
			sent := MakePlan(tokens.VisibleHistory(tt.history.entries).Entries(), tokens.Chars{}, tt.opt)
			if names(sent.Summarize) != names(p.Summarize) || names(sent.Tail) != names(p.Tail) {
				t.Errorf("from sent order: Summarize %q Tail %q, want %q %q",
					names(sent.Summarize), names(sent.Tail), names(p.Summarize), names(p.Tail))
			}
		})
	}
}

// Whatever the budget, the plan partitions the visible history in order,
// keeps every tool call with its result, and stays within the budget.
func TestMakePlanInvariants(t *testing.T) {
	h := new(history)
	for i := range 12 {
		h.user(fmt.Sprintf("u%d", i), 5+i*7)
		for j := range i % 4 {
			h.assistant(fmt.Sprintf("a%d.%d", i, j), (i*j*997)%3000)
		}
		if i == 6 {
			h.cont()
		}
	}
	visible := names(tokens.VisibleHistory(h.entries).Entries())
	for budget := int64(0); budget < 20000; budget += 137 {
		for turns := 0; turns <= 4; turns++ {
			p := MakePlan(h.entries, tokens.Chars{}, Options{TailTurns: turns, TailBudget: budget})
			if got := strings.TrimSpace(names(p.Summarize) + " " + names(p.Tail)); got != visible {
				t.Fatalf("budget %d turns %d: Summarize+Tail = %q, want %q", budget, turns, got, visible)
			}
			if len(p.Summarize) == 0 {
				t.Fatalf("budget %d turns %d: nothing to summarise", budget, turns)
			}
			if cost := tokens.EstimateEntries(p.Tail, tokens.Chars{}); cost > budget {
				t.Fatalf("budget %d turns %d: tail costs %d", budget, turns, cost)
			}
			for _, e := range p.Tail {
				for _, part := range e.Parts {
					if part.Tool != nil && part.Tool.Status != message.ToolCompleted {
						t.Fatalf("tail holds an unfinished call %s", part.Tool.CallID)
					}
				}
			}
		}
	}
}

func TestMakePlanUserMessages(t *testing.T) {
	tests := []struct {
		name    string
		history *history
		budget  int64
		want    []string
	}{
		{
			name: "newest first within the budget, returned oldest first",
			history: new(history).userText("m1", words(40)).userText("m2", words(40)).
				userText("m3", words(40)).userText("m4", words(30)).user("tail", 1),
			budget: 100,
			want:   []string{words(40), words(30)},
		},
		{
			name: "one that does not fit is skipped, an older short rule still kept",
			history: new(history).userText("m1", "use tabs").userText("m2", words(40)).
				userText("m3", words(40)).userText("m4", words(30)).user("tail", 1),
			budget: 100,
			want:   []string{"use tabs", words(40), words(30)},
		},
		{
			name:    "synthetic messages are not the user's, repeats kept once",
			history: new(history).userText("m1", "yes").cont().userText("m2", "run the tests").userText("m3", "yes").user("tail", 1),
			budget:  100,
			want:    []string{"run the tests", "yes"},
		},
		{
			name:    "no budget, no messages",
			history: new(history).userText("m1", "rule").user("tail", 1),
			budget:  0,
		},
		{
			name: "the previous summary's messages are carried over, older than the new ones",
			history: new(history).userText("m0", "old request").
				summary(ComposeSummary("summary", []string{"never push", "old request"}), "").
				userText("m1", "new request").user("tail", 1),
			budget: 100,
			want:   []string{"never push", "old request", "new request"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MakePlan(tt.history.entries, tokens.Chars{}, Options{TailTurns: 1, TailBudget: 1000, UserBudget: tt.budget})
			if !slices.Equal(p.UserMessages, tt.want) {
				t.Errorf("UserMessages = %q, want %q", p.UserMessages, tt.want)
			}
		})
	}
}

// A long message is cut in its middle to half the budget, keeping both ends.
func TestMakePlanCutsALongUserMessage(t *testing.T) {
	long := "START " + strings.Repeat("log line\n", 5000) + " END?"
	h := new(history).userText("rule", "always run go vet").userText("paste", long).user("tail", 1)
	p := MakePlan(h.entries, tokens.Chars{}, Options{TailTurns: 1, TailBudget: 1000, UserBudget: 400})
	if len(p.UserMessages) != 2 || p.UserMessages[0] != "always run go vet" {
		t.Fatalf("UserMessages = %q", p.UserMessages)
	}
	cut := p.UserMessages[1]
	if n := (tokens.Chars{}).Count(cut); n > 200 {
		t.Errorf("cut message costs %d tokens, want ≤ 200", n)
	}
	if !strings.HasPrefix(cut, "START ") || !strings.HasSuffix(cut, " END?") || !strings.Contains(cut, "characters omitted") {
		t.Errorf("cut message lost its ends or its note: %q…%q", cut[:20], cut[len(cut)-20:])
	}
}

func TestMakePlanPreviousSummary(t *testing.T) {
	h := new(history).user("u0", 10).summary("first summary", "").user("u1", 10).assistant("a1", 10).user("u2", 10)
	p := MakePlan(h.entries, tokens.Chars{}, DefaultOptions(100000, 10000))
	if p.PreviousSummary == nil || entryName[p.PreviousSummary.Message.ID] != "S" {
		t.Fatalf("PreviousSummary = %v, want S", p.PreviousSummary)
	}
	if p2 := MakePlan(new(history).user("u0", 1).entries, tokens.Chars{}, DefaultOptions(1000, 100)); p2.PreviousSummary != nil {
		t.Errorf("PreviousSummary without a summary = %v", p2.PreviousSummary)
	}
}

func TestDefaultOptions(t *testing.T) {
	got := DefaultOptions(128000, 16000)
	if want := (Options{TailTurns: 2, TailBudget: 28000, UserBudget: 12800}); got != want {
		t.Errorf("DefaultOptions = %+v, want %+v", got, want)
	}
}

func TestPlanEstimateAfter(t *testing.T) {
	h := new(history).user("u1", 1000).assistant("a1", 5000).user("u2", 10).assistant("a2", 20)
	p := MakePlan(h.entries, tokens.Chars{}, Options{TailTurns: 1, TailBudget: 1000})
	body := words(300)
	tail := tokens.EstimateEntries(p.Tail, tokens.Chars{})
	got := p.EstimateAfter(body, tokens.Chars{})
	// The summary is sent as a message with a preamble: more than its text.
	if got <= 300+tail || got > 300+tail+40 {
		t.Errorf("EstimateAfter = %d, want a little over %d", got, 300+tail)
	}
	before := tokens.EstimateEntries(h.entries, tokens.Chars{})
	if err := Validate(body, before, got); err != nil {
		t.Errorf("Validate(%d → %d) = %v", before, got, err)
	}
	if err := Validate(words(7000), before, p.EstimateAfter(words(7000), tokens.Chars{})); !errors.Is(err, ErrNotReduced) {
		t.Errorf("a summary longer than what it replaces: Validate = %v, want ErrNotReduced", err)
	}
}

// BenchmarkMakePlan plans a compaction of 1,000 messages (about 2,000
// parts) with chars/4.
func BenchmarkMakePlan(b *testing.B) {
	h := new(history)
	for i := 0; len(h.entries) < 1000; i++ {
		if i%3 == 0 {
			h.user(fmt.Sprintf("u%d", i), 20+i%50)
		} else {
			h.assistant(fmt.Sprintf("a%d", i), (i*631)%5000)
		}
	}
	opt := DefaultOptions(200000, 32000)
	b.ReportAllocs()
	var p Plan
	for b.Loop() {
		p = MakePlan(h.entries, tokens.Chars{}, opt)
	}
	if len(p.Tail) == 0 || len(p.UserMessages) == 0 {
		b.Fatalf("tail %d, user messages %d", len(p.Tail), len(p.UserMessages))
	}
}

// TestUserMessagesKeepTheTaskAndRules: when the verbatim budget is full,
// the user's first request and their standing rules are kept before newer
// chatter, so a follow-up never becomes "the task" (issue 12, rules
// dropped).
func TestUserMessagesKeepTheTaskAndRules(t *testing.T) {
	var candidates []string
	candidates = append(candidates, "Build a CLI called zork.", "Never use global variables.")
	for i := range 40 {
		candidates = append(candidates, fmt.Sprintf("follow-up %d: tweak the output format a little more please", i))
	}
	got := selectUserMessages(candidates, tokens.Chars{}, 60)
	if len(got) < 3 || got[0] != "Build a CLI called zork." || got[1] != "Never use global variables." {
		t.Fatalf("picked %q", got)
	}
	if last := got[len(got)-1]; !strings.HasPrefix(last, "follow-up 39") {
		t.Errorf("the newest follow-up was not kept: %q", last)
	}
}

// TestPlanAfter: "summarise after here" keeps what is sent up to the chosen
// message (the previous tail included) as the head and summarises the
// rest; once stored, MakePlan summarises that head with what follows, and
// the fallback never keeps it; an unknown message is refused.
func TestPlanAfter(t *testing.T) {
	var h history
	h.user("u1", 10).assistant("a1", 10).user("u2", 10).assistant("a2", 10).summary("S1", "u2")
	h.user("u3", 10).assistant("a3", 10).user("u4", 10).assistant("a4", 10)

	p, err := PlanAfter(h.entries, nil, DefaultOptions(10000, 1000), idOf(h, "a3"))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(p.Head) + " | " + names(p.Summarize) + " | " + names(p.Tail); got != "u2 a2 u3 a3 | u4 a4 | " {
		t.Errorf("head | summarise | tail = %q", got)
	}
	if p.PreviousSummary == nil || entryName[p.PreviousSummary.Message.ID] != "S" {
		t.Errorf("the previous summary is not carried on")
	}
	if _, err := PlanAfter(h.entries, nil, DefaultOptions(10000, 1000), idOf(h, "a1")); !errors.Is(err, ErrNotInRange) {
		t.Errorf("a summarised message: %v", err)
	}

	// Stored: marker (HeadUpTo a3), summary, then a new turn.
	h.add(message.RoleUser, "marker", message.Part{Type: message.PartCompaction,
		Compaction: &message.CompactionState{HeadUpTo: idOf(h, "a3")}})
	markerIdx := len(h.entries) - 1
	s := h.add(message.RoleAssistant, "S", message.Part{Type: message.PartText, Text: "S2"})
	s.Message.Summary = true
	h.entries[markerIdx].Parts[0].Compaction.SummaryID = s.Message.ID
	h.user("u5", 10).assistant("a5", 10)

	if got := names(tokens.VisibleHistory(h.entries).Entries()); got != "u2 a2 u3 a3 S u5 a5" {
		t.Errorf("sent = %q", got)
	}
	next := MakePlan(h.entries, nil, Options{TailTurns: 1, TailBudget: 1000})
	if got := names(next.Summarize) + " | " + names(next.Tail); got != "u2 a2 u3 a3 | u5 a5" {
		t.Errorf("next plan: summarise | tail = %q", got)
	}
	headless := Plan{Tail: p.Tail}
	if got, want := p.EstimateAfter("x", tokens.Chars{})-headless.EstimateAfter("x", tokens.Chars{}), tokens.EstimateEntries(p.Head, tokens.Chars{}); got != want {
		t.Errorf("EstimateAfter counts %d for the head, want %d", got, want)
	}
	f, ok := PlanFallback(h.entries, nil, Options{TailTurns: 1, TailBudget: 1000}, 1)
	if !ok || f.KeepFrom != idOf(h, "u5") {
		t.Errorf("fallback keeps from %q (ok %v), want u5", entryName[f.KeepFrom], ok)
	}
}

func idOf(h history, name string) string {
	for _, e := range h.entries {
		if entryName[e.Message.ID] == name {
			return e.Message.ID
		}
	}
	return ""
}
