package compact

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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
