package loop

// What an edit of the summary may change. A stored summary is the model's
// summary text followed by the block of the user's own messages kept word
// for word (compact.ComposeSummary); pins travel in their own message.
// Only the summary text is the user's to edit: EditSummary keeps the
// verbatim block and the pins whatever the new text holds, so an edit can
// never drop the user's words. An editor is shown the summary text, then
// SummaryEditMarker, then the kept block and the pins for reference;
// everything from the marker down is dropped on save (SummaryFromEditFile).

import (
	"strings"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
)

// SummaryEditMarker is the line of an editor's file below which nothing
// is editable: what follows is shown for reference and dropped on save.
const SummaryEditMarker = "# ------------------------ >8 ------------------------"

// summaryEditNote follows the marker in the editor's file.
const summaryEditNote = `# Everything below the line above is kept as it is and sent after your
# summary: the user's messages word for word, and the pins (edit pins with
# /pins or agent pins). Changes below the line are ignored.`

// EditableSummary returns the part of a stored summary body the user may
// edit: the summary text without the verbatim user messages.
func EditableSummary(body string) string {
	text, _ := compact.SplitSummary(body)
	return text
}

// SummaryEditFile returns what an editor shows for the summary body: the
// editable text and, below SummaryEditMarker, the verbatim user messages
// and the pins, read-only. With nothing kept it is the editable text alone.
func SummaryEditFile(body string, pins []message.Pin) string {
	text, users := compact.SplitSummary(body)
	kept := keptText(users, pins)
	if kept == "" {
		return text + "\n"
	}
	return text + "\n\n" + SummaryEditMarker + "\n" + summaryEditNote + "\n\n" + kept + "\n"
}

// keptText is the read-only part of the editor's file.
func keptText(users []string, pins []message.Pin) string {
	var parts []string
	if len(users) > 0 {
		parts = append(parts, strings.TrimSpace(compact.ComposeSummary("", users)))
	}
	if p := PinsText(pins); p != "" {
		parts = append(parts, pinsHeading+strings.TrimSpace(p))
	}
	return strings.Join(parts, "\n\n")
}

// SummaryFromEditFile returns the edited summary text of an editor's file:
// everything before the first SummaryEditMarker line. A file whose marker
// was deleted still loses a copy of the kept block (EditSummary cuts
// anything from the verbatim heading on); the rest is the user's text.
func SummaryFromEditFile(file string) string {
	lines := strings.SplitAfter(file, "\n")
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == SummaryEditMarker {
			break
		}
		b.WriteString(l)
	}
	text := b.String()
	if i := strings.Index(text, pinsHeading+strings.TrimSpace(PinsPreamble)); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSpace(text)
}

// pinsHeading starts the pins in the read-only part of the editor's file.
const pinsHeading = "## Pins\n\n"

// summaryWithEdit is the stored body after an edit: the new summary text
// (cut at a marker or a copy of the verbatim heading) and the verbatim
// user messages of body, unchanged.
func summaryWithEdit(body, edited string) string {
	_, users := compact.SplitSummary(body)
	text, _ := compact.SplitSummary(SummaryFromEditFile(edited))
	return compact.ComposeSummary(text, users)
}
