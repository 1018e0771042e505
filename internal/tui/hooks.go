package tui

// A hook that has something to say (output, a block, an error) is a dim
// note under the turn. SessionStart hooks run while the session opens,
// before the conversation is rebuilt from its history: their notes wait
// for it.

import (
	"strings"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// hookNoteMax bounds the hook output a note shows; the rest is in
// `agent run --format json`'s hook events.
const hookNoteMax = 400

// hookNotes holds the notes of hooks that ran while the session opened,
// for show to add once the conversation is rebuilt. Its zero value holds
// none.
type hookNotes struct{ pending []string }

// ran notes a hook run in chat, or keeps the note while opening.
func (hn *hookNotes) ran(chat *chatView, opening bool, h *message.HookRun) {
	text := hookNoteText(h)
	if text == "" {
		return
	}
	if opening {
		hn.pending = append(hn.pending, text)
		return
	}
	chat.add(&noticeItem{kind: noticeInfo, text: text})
}

// show adds the notes of hooks that ran while the session opened to chat.
func (hn *hookNotes) show(chat *chatView) {
	for _, text := range hn.pending {
		chat.add(&noticeItem{kind: noticeInfo, text: text})
	}
	hn.pending = nil
}

// hookNoteText is the note of a hook run: "" when the hook said nothing
// and neither blocked nor failed.
func hookNoteText(h *message.HookRun) string {
	if h == nil {
		return ""
	}
	out := termsafe.Strip(strings.TrimSpace(h.Output))
	if !h.Blocked && h.Error == "" && out == "" {
		return ""
	}
	cmd := strings.Join(strings.Fields(termsafe.Strip(h.Command)), " ")
	if r := []rune(cmd); len(r) > 40 {
		cmd = string(r[:39]) + "…"
	}
	head := h.Event + " hook " + cmd
	switch {
	case h.Blocked:
		head += " blocked"
	case h.Error != "":
		head += ": " + termsafe.Strip(h.Error)
	}
	if out == "" {
		return head
	}
	if r := []rune(out); len(r) > hookNoteMax {
		out = string(r[:hookNoteMax-1]) + "…"
	}
	return head + ": " + out
}
