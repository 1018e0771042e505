package lsp

// introduced.go: which diagnostics an edit introduced, a pure decision.
// Two diagnostics are the same when their severity, code and message are;
// a diagnostic after the edit is old when one of the same before the edit
// sits on the line the edit moved it to, or else when any of the same is
// left over (the edit moved code around). What remains is new. Counting
// is by multiset: one "undefined: x" before and two after is one new.

import (
	"fmt"
	"sort"
	"strings"
)

// Introduced returns the diagnostics of after that before (of the text
// oldText, now newText) did not have, errors only unless warnings is set,
// in line order.
func Introduced(before, after []Diagnostic, oldText, newText string, warnings bool) []Diagnostic {
	shift := lineShift(oldText, newText)
	left := map[string][]int{} // key → lines after the edit of the unmatched before-diagnostics
	for _, d := range before {
		left[d.key()] = append(left[d.key()], shift(d.Range.Start.Line))
	}
	take := func(key string, line int, anyLine bool) bool {
		lines := left[key]
		for i, l := range lines {
			if anyLine || l == line {
				left[key] = append(lines[:i], lines[i+1:]...)
				return true
			}
		}
		return false
	}
	matched := make([]bool, len(after))
	for i, d := range after {
		matched[i] = take(d.key(), d.Range.Start.Line, false)
	}
	var out []Diagnostic
	for i, d := range after {
		if matched[i] || take(d.key(), 0, true) {
			continue
		}
		if d.Severity == SeverityError || d.Severity == 0 || (warnings && d.Severity == SeverityWarning) {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out
}

// lineShift maps a 0-based line of oldText to where the edit moved it
// in newText: lines before the first changed one stay, lines after the
// last changed one move by the difference in line count, and lines the
// edit replaced map to -1 (no line).
func lineShift(oldText, newText string) func(int) int {
	a, b := strings.Split(oldText, "\n"), strings.Split(newText, "\n")
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	delta := len(b) - len(a)
	return func(line int) int {
		switch {
		case line < prefix:
			return line
		case line >= len(a)-suffix:
			return line + delta
		}
		return -1
	}
}

// Format writes diags of the file shown as path, one a line ("main.go:12:5:
// error: undefined: foo"), at most maxCount of them and maxBytes in all;
// what is left out is counted on a last line.
func Format(path string, diags []Diagnostic, maxCount, maxBytes int) string {
	var b strings.Builder
	for i, d := range diags {
		line := fmt.Sprintf("%s:%d:%d: %s: %s", path, d.Line(), d.Column(), d.Severity, oneLine(d.Message))
		if i >= maxCount || b.Len()+len(line)+1 > maxBytes {
			fmt.Fprintf(&b, "… and %d more", len(diags)-i)
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// oneLine is a message on one line, at most 500 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
