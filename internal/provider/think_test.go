package provider

import (
	"strings"
	"testing"
)

func TestThinkSplitter(t *testing.T) {
	tests := []struct {
		name            string
		deltas          []string
		text, reasoning string
	}{
		{"plain answer", []string{"Hello", " world"}, "Hello world", ""},
		{"whole block", []string{"<think>Add them.</think>4"}, "4", "Add them."},
		{"tags split across deltas", []string{"<thi", "nk>\nAdd", " them.\n</th", "ink>\n\n", "2 + 2 = 4."}, "2 + 2 = 4.", "Add them.\n"},
		{"one byte at a time", strings.Split("<think>ok</think>yes", ""), "yes", "ok"},
		{"after leading whitespace", []string{"\n  ", "<think>hmm</think>", "ok"}, "ok", "hmm"},
		{"not at the start is text", []string{"Use ", "<think>tags</think> to think."}, "Use <think>tags</think> to think.", ""},
		{"a prefix that is not the tag", []string{"<thi", "s is HTML>"}, "<this is HTML>", ""},
		{"a second block is text", []string{"<think>a</think>b<think>c</think>"}, "b<think>c</think>", "a"},
		{"unclosed block is reasoning", []string{"<think>still", " thinking</th"}, "", "still thinking</th"},
		{"ends on a partial opening tag", []string{"<thin"}, "<thin", ""},
		{"only whitespace", []string{" \n"}, " \n", ""},
		{"empty block", []string{"<think></think>", "Hi"}, "Hi", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sp thinkSplitter
			var text, reasoning strings.Builder
			emit := func(s string, isReasoning bool) {
				if s == "" {
					t.Errorf("empty piece emitted")
				}
				if isReasoning {
					reasoning.WriteString(s)
				} else {
					text.WriteString(s)
				}
			}
			for _, d := range tt.deltas {
				sp.feed(d, emit)
			}
			sp.flush(emit)
			if text.String() != tt.text || reasoning.String() != tt.reasoning {
				t.Errorf("text %q reasoning %q, want %q and %q", text.String(), reasoning.String(), tt.text, tt.reasoning)
			}
		})
	}
}
