package compact

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

func TestSummaryPrompt(t *testing.T) {
	huge := strings.Repeat("é", 50*1024/2) // 50 KB of two-byte runes
	tests := []struct {
		name      string
		focus     string
		contains  []string
		excludes  []string
		maxLength int
	}{
		{name: "no focus", focus: "  ", excludes: []string{"focus on"}},
		{name: "focus included", focus: "the flaky test in storage",
			contains: []string{"focus on the following", "the flaky test in storage"}},
		{name: "a 50 KB focus is trimmed with a note", focus: huge,
			contains:  []string{"[focus instructions trimmed from 25600 to 2000 characters]", strings.Repeat("é", 2000)},
			excludes:  []string{strings.Repeat("é", 2001)},
			maxLength: 8000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := SummaryPrompt(tt.focus)
			for _, s := range Sections {
				if !strings.Contains(p, "\n## "+s+"\n") {
					t.Errorf("prompt lacks section %q", s)
				}
			}
			for _, s := range tt.contains {
				if !strings.Contains(p, s) {
					t.Errorf("prompt lacks %.60q", s)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(p, s) {
					t.Errorf("prompt contains %.60q", s)
				}
			}
			if tt.maxLength > 0 && utf8.RuneCountInString(p) > tt.maxLength {
				t.Errorf("prompt is %d characters, want ≤ %d", utf8.RuneCountInString(p), tt.maxLength)
			}
			if !utf8.ValidString(p) {
				t.Error("prompt is not valid UTF-8")
			}
		})
	}
}

func TestComposeAndSplitSummary(t *testing.T) {
	tests := []struct {
		name     string
		summary  string
		messages []string
	}{
		{"no user messages", "## Goal\nShip it.", nil},
		{"messages kept verbatim", "## Goal\nShip it.", []string{"use tabs", "multi\nline\n\n  indented", "yes"}},
		{"a message quoting the closing tag", "## Goal\nx", []string{"what does </user_message> mean?", "<user_message>\nnested\n</user_message>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := ComposeSummary("\n"+tt.summary+"\n\n", tt.messages)
			if len(tt.messages) == 0 && body != tt.summary {
				t.Errorf("body = %q, want the trimmed summary", body)
			}
			if len(tt.messages) > 0 && !strings.Contains(body, UserMessagesHeading) {
				t.Errorf("body lacks %q", UserMessagesHeading)
			}
			summary, messages := SplitSummary(body)
			if summary != tt.summary {
				t.Errorf("summary = %q, want %q", summary, tt.summary)
			}
			if !slices.Equal(messages, tt.messages) {
				t.Errorf("messages = %q, want %q", messages, tt.messages)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name          string
		summary       string
		before, after int64
		wantErr       error
		wantMsg       string
	}{
		{"accepted", "## Goal\nx", 90000, 12000, nil, ""},
		{"empty", "", 90000, 100, ErrEmptySummary, "compaction: empty summary"},
		{"blank", " \n\t", 90000, 100, ErrEmptySummary, "compaction: empty summary"},
		{"did not shrink", "long", 1000, 1000, ErrNotReduced, "compaction did not reduce the context: 1000 → 1000"},
		{"grew", "longer", 1000, 1500, ErrNotReduced, "compaction did not reduce the context: 1000 → 1500"},
	}
	for _, tt := range tests {
		err := Validate(tt.summary, tt.before, tt.after)
		if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
			t.Errorf("%s: Validate = %v, want %v", tt.name, err, tt.wantErr)
			continue
		}
		if err != nil && err.Error() != tt.wantMsg {
			t.Errorf("%s: error %q, want %q", tt.name, err, tt.wantMsg)
		}
	}
}

func TestDropOldest(t *testing.T) {
	withSummary := new(history).user("u0", 1).summary("s", "").user("u1", 1).assistant("a1", 1).user("u2", 1).assistant("a2", 1)
	request := tokens.VisibleHistory(withSummary.entries).Entries() // S u1 a1 u2 a2
	plain := new(history).user("u1", 1).assistant("a1", 1).user("u2", 1)
	tests := []struct {
		name    string
		entries []message.Entry
		n       int
		want    string
	}{
		{"keeps the summary", request, 2, "S u2 a2"},
		{"drops everything else at most", request, 10, "S"},
		{"zero", request, 0, "S u1 a1 u2 a2"},
		{"negative", request, -3, "S u1 a1 u2 a2"},
		{"without a summary", plain.entries, 1, "a1 u2"},
		{"empty", nil, 3, ""},
	}
	for _, tt := range tests {
		before := names(tt.entries)
		if got := names(DropOldest(tt.entries, tt.n)); got != tt.want {
			t.Errorf("%s: DropOldest(%d) = %q, want %q", tt.name, tt.n, got, tt.want)
		}
		if names(tt.entries) != before {
			t.Errorf("%s: DropOldest modified its input", tt.name)
		}
	}
}

func TestDropToFit(t *testing.T) {
	h := new(history).user("u0", 1).summary("s", "").user("u1", 100).assistant("a1", 1000).user("u2", 100).assistant("a2", 100)
	request := tokens.VisibleHistory(h.entries).Entries()
	cost := func(e []message.Entry) int64 { return tokens.EstimateEntries(e, tokens.Chars{}) }
	tests := []struct {
		budget      int64
		want        string
		wantDropped int
	}{
		{1 << 20, "S u1 a1 u2 a2", 0},
		{cost(request) - 1, "S a1 u2 a2", 1},
		{cost(request[3:]) + cost(request[:1]), "S u2 a2", 2},
		{1, "S", 4},
	}
	for _, tt := range tests {
		got, dropped := DropToFit(request, tokens.Chars{}, tt.budget)
		if names(got) != tt.want || dropped != tt.wantDropped {
			t.Errorf("DropToFit(budget %d) = %q, %d; want %q, %d", tt.budget, names(got), dropped, tt.want, tt.wantDropped)
		}
	}
}

// A model that copies the previous summary's verbatim section does not get
// it stored twice.
func TestComposeSummaryDropsACopiedSection(t *testing.T) {
	previous := ComposeSummary("## Goal\nold", []string{"never push"})
	modelOutput := "## Goal\nnew\n\n" + previous[strings.Index(previous, UserMessagesHeading):]
	body := ComposeSummary(modelOutput, []string{"never push", "ship"})
	if n := strings.Count(body, UserMessagesHeading); n != 1 {
		t.Fatalf("heading appears %d times in %q", n, body)
	}
	summary, messages := SplitSummary(body)
	if summary != "## Goal\nnew" || !slices.Equal(messages, []string{"never push", "ship"}) {
		t.Errorf("SplitSummary = %q, %q", summary, messages)
	}
}
