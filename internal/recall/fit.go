package recall

import (
	"fmt"

	"github.com/ctxloop/agent/internal/context/truncate"
)

// Fitting a fetched text to the room the context has (tools.ResultRoom):
// the output comes first. The header (what the reference is, and a tool
// call's input) is cut to a small share of the room, and the page of text
// is kept as head and tail, as truncation keeps a command's output, with
// a line saying which lines were left out and how to read them (recall
// with offset, or the saved file). Whatever the room, the result holds
// text of the output, never only its header.

// minBodyBytes is the least of the text a fetch shows, however little room
// is left: the loop's step fit may cut further, but from the output's
// head, not instead of it.
const minBodyBytes = 1024

// maxHeaderShare bounds the header to this fraction of the room (a call's
// input can be as long as its output: a write, a heredoc).
const maxHeaderShare = 8

// noticeSlackBytes is left for the line saying what was cut.
const noticeSlackBytes = 512

// fitHeader cuts a header to its share of room, keeping its head; room ≤ 0
// leaves it whole.
func fitHeader(header string, room int) string {
	limit := room / maxHeaderShare
	if room <= 0 || len(header) <= limit {
		return header
	}
	kept, _ := truncate.Apply(header, 0, max(limit, 256))
	return kept + fmt.Sprintf("… [header cut: %s in all]\noutput:\n", truncate.FormatBytes(int64(len(header))))
}

// bodyRoom is how many bytes of text a fetch with this header may show in
// room (≤ 0: unknown, the usual cap).
func bodyRoom(header string, room int) int {
	limit := truncate.DefaultMaxBytes - len(header) - noticeSlackBytes
	if room > 0 {
		limit = min(limit, room-len(header)-noticeSlackBytes)
	}
	return max(limit, minBodyBytes)
}

// fitPage keeps a page's text within maxBytes as head and tail. It returns
// the text and, when it cut, the first and last line (1-based, of the
// whole text) it left out.
func fitPage(p PageOf, maxBytes int) (text string, fromLine, toLine int) {
	if len(p.Text) <= maxBytes {
		return p.Text, 0, 0
	}
	head, tail, cut := truncate.SplitHeadTail(p.Text, 0, maxBytes)
	// Lines of the head that end in it are shown whole; the middle starts
	// at the line after them (or at a line the head cut, shown again).
	fromLine = p.From + truncate.CountLines(head)
	if head != "" && head[len(head)-1] != '\n' {
		fromLine--
	}
	toLine = fromLine + max(cut.Lines, 1) - 1
	return truncate.JoinHeadTail(head, tail, truncate.CutMarker(cut)), fromLine, toLine
}
