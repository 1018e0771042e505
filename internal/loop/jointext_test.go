package loop

import (
	"testing"
	"unsafe"

	"github.com/ctxloop/agent/internal/message"
)

// TestJoinTextSharesTheOnlyText: a message of one text is sent as that
// text, not a copy (the request cache holds every message's content of a
// resumed session); several are joined by newlines, skipping the empty
// ones and the other types.
func TestJoinTextSharesTheOnlyText(t *testing.T) {
	only := "the only text"
	got := joinText([]message.Part{{Type: message.PartReasoning, Text: "r"}, {Type: message.PartText, Text: only}, {Type: message.PartText}}, message.PartText)
	if got != only || unsafe.StringData(got) != unsafe.StringData(only) {
		t.Errorf("one text: %q, a copy %v", got, unsafe.StringData(got) != unsafe.StringData(only))
	}
	got = joinText([]message.Part{{Type: message.PartText, Text: "a"}, {Type: message.PartText}, {Type: message.PartTool}, {Type: message.PartText, Text: "b"}, {Type: message.PartText, Text: "c"}}, message.PartText)
	if got != "a\nb\nc" {
		t.Errorf("joined %q, want a\\nb\\nc", got)
	}
	if got := joinText(nil, message.PartText); got != "" {
		t.Errorf("no text: %q", got)
	}
}
