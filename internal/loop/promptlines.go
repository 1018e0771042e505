package loop

// promptlines.go: the named lines of the system prompt — guidance a
// feature adds to the stable prompt (prompt.go) — so that /context and
// `agent context` can say what each costs (tokens.Breakdown.PromptLines,
// part of the system row). A feature that adds a line to stablePrompt
// names it here.

import (
	"slices"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/todo"
)

// promptLines are the named lines, each a substring of stablePrompt.
var promptLines = []struct{ name, text string }{
	{"todo list", todo.PromptLine},
}

// namedPromptLines estimates the named lines that stablePrompt holds
// (plain character estimate: they are short and fixed). The caller may
// not change the slice.
var namedPromptLines = sync.OnceValue(func() []tokens.PromptLine {
	var out []tokens.PromptLine
	for _, l := range promptLines {
		if strings.Contains(stablePrompt, l.text) {
			out = append(out, tokens.PromptLine{Name: l.name, Tokens: int64(tokens.Chars{}.Count(l.text))})
		}
	}
	return slices.Clip(out)
})
