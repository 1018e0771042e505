// Package truncate is tier 1 of context management: it caps what a tool
// result may put into the conversation, and keeps the full output on disk so
// that nothing is lost.
//
// Apply is the one shared cap every tool result passes through (keep the
// head); HeadTail keeps the head and the tail, for command output whose end
// (the error, the summary line) matters as much as its start. Both are pure
// and cut on line boundaries when they can, never inside a UTF-8 sequence.
// Saver writes full outputs under the data directory (0700 directory, 0600
// files) and Clean expires them.
package truncate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Default caps shared by every tool result.
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
)

// Cut describes what a truncation removed.
type Cut struct {
	Lines int // whole or partial lines removed
	Bytes int // bytes removed
}

// Apply keeps the beginning of output within maxLines lines and maxBytes
// bytes (a limit ≤ 0 means no limit on that dimension) and reports whether
// anything was removed. It is the shared cap applied to every tool result;
// the caller appends a Notice saying where the full output is.
func Apply(output string, maxLines, maxBytes int) (kept string, truncated bool) {
	if fits(output, maxLines, maxBytes) {
		return output, false
	}
	return headOf(output, maxLines, maxBytes), true
}

// Tail keeps the end of output within maxLines lines and maxBytes bytes,
// the counterpart of Apply for callers that hold only an output's end.
func Tail(output string, maxLines, maxBytes int) (kept string, truncated bool) {
	if fits(output, maxLines, maxBytes) {
		return output, false
	}
	return tailOf(output, maxLines, maxBytes), true
}

// HeadTail keeps the beginning and the end of output, each within half of
// maxLines and maxBytes, and replaces the middle with one line saying how
// much was cut. It reports whether anything was removed.
func HeadTail(output string, maxLines, maxBytes int) (kept string, truncated bool) {
	head, tail, cut := SplitHeadTail(output, maxLines, maxBytes)
	if cut == (Cut{}) {
		return output, false
	}
	return JoinHeadTail(head, tail, CutMarker(cut)), true
}

// SplitHeadTail returns the head and tail HeadTail would keep and what lies
// between them. When output fits, head is output and tail and cut are empty.
func SplitHeadTail(output string, maxLines, maxBytes int) (head, tail string, cut Cut) {
	if fits(output, maxLines, maxBytes) {
		return output, "", Cut{}
	}
	hl, tl := half(maxLines)
	hb, tb := half(maxBytes)
	head = headOf(output, hl, hb)
	if (maxLines <= 0 || tl > 0) && (maxBytes <= 0 || tb > 0) {
		tail = tailOf(output[len(head):], tl, tb)
	}
	middle := output[len(head) : len(output)-len(tail)]
	return head, tail, Cut{Lines: CountLines(middle), Bytes: len(middle)}
}

// JoinHeadTail puts head, a marker line and tail together, each on its own
// lines.
func JoinHeadTail(head, tail, marker string) string {
	var b strings.Builder
	b.Grow(len(head) + len(marker) + len(tail) + 2)
	b.WriteString(head)
	if head != "" && !strings.HasSuffix(head, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(marker)
	b.WriteByte('\n')
	b.WriteString(tail)
	return b.String()
}

// CutMarker is the line put where HeadTail removed the middle of an output.
func CutMarker(c Cut) string {
	return fmt.Sprintf("... [%s cut from the middle] ...", describe(c.Lines, c.Bytes))
}

// Notice is the paragraph appended to a result Apply truncated: what is
// shown, how big the whole is, where it was saved and how to read on. path
// may be empty when the output could not be saved.
func Notice(keptLines, totalLines, totalBytes int, path string) string {
	if path == "" {
		return fmt.Sprintf("\n\n[Output truncated: showing the first %d of %d lines (%s in all). The full output could not be saved; narrow the request (offset/limit, a more specific pattern or path) to see the rest.]",
			keptLines, totalLines, formatBytes(totalBytes))
	}
	return fmt.Sprintf("\n\n[Output truncated: showing the first %d of %d lines (%s in all). The full output is saved at %s; use read with offset=%d (and limit) to continue, or grep on that file to search it.]",
		keptLines, totalLines, formatBytes(totalBytes), path, keptLines+1)
}

// CountLines counts the lines of s: newline characters, plus one for a last
// line without a newline.
func CountLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func fits(s string, maxLines, maxBytes int) bool {
	if maxBytes > 0 && len(s) > maxBytes {
		return false
	}
	return maxLines <= 0 || CountLines(s) <= maxLines
}

// headOf returns the longest prefix of s made of whole lines within the
// limits; if not even the first line fits, the first line cut at a rune
// boundary.
func headOf(s string, maxLines, maxBytes int) string {
	end, lines := 0, 0
	for end < len(s) && (maxLines <= 0 || lines < maxLines) {
		next := strings.IndexByte(s[end:], '\n')
		stop := len(s)
		if next >= 0 {
			stop = end + next + 1
		}
		if maxBytes > 0 && stop > maxBytes {
			if lines == 0 {
				return s[:runeStart(s, maxBytes)]
			}
			break
		}
		end = stop
		lines++
	}
	return s[:end]
}

// tailOf returns the longest suffix of s made of whole lines within the
// limits; if not even the last line fits, its end cut at a rune boundary.
func tailOf(s string, maxLines, maxBytes int) string {
	start, lines := len(s), 0
	for start > 0 && (maxLines <= 0 || lines < maxLines) {
		// The line ending at start begins after the previous newline.
		from := strings.LastIndexByte(s[:start-1], '\n') + 1
		if maxBytes > 0 && len(s)-from > maxBytes {
			if lines == 0 {
				cut := len(s) - maxBytes
				for cut < len(s) && !utf8.RuneStart(s[cut]) {
					cut++
				}
				return s[cut:]
			}
			break
		}
		start = from
		lines++
	}
	return s[start:]
}

// runeStart returns the largest index ≤ n that starts a rune in s.
func runeStart(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

func half(n int) (int, int) {
	if n <= 0 {
		return 0, 0
	}
	first := (n + 1) / 2
	return first, n - first
}

func describe(lines, bytes int) string {
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("%d %s (%s)", lines, unit, formatBytes(bytes))
}

func formatBytes(n int) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// FormatBytes renders a size for people and models: "512 bytes", "1.5 MB".
func FormatBytes(n int64) string { return formatBytes(int(n)) }
