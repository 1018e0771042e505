package main

// How the commands shape what they print: one-line forms of text of any
// length, and whether a stream is a terminal (where text from the model,
// the tools or a server must lose its control characters: termsafe).

import (
	"os"
	"strings"

	"github.com/ctxloop/agent/internal/termsafe"
)

// oneLine is s on one line (its runs of white space one space), at most n
// runes, an ellipsis marking a cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// oneLineOf is s on one line, at most max runes, with no terminal escapes:
// a server's name, reason and stderr come from outside the agent.
func oneLineOf(s string, max int) string {
	return oneLine(termsafe.Strip(s), max)
}

// toTerminal reports whether f is a terminal, where text from the model
// and tools must lose its control characters.
func toTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
