package loop

// promptlines.go: the named lines of the system prompt — guidance a
// feature adds to the stable prompt (prompt.go) — so that /context and
// `agent context` can say what each costs (tokens.Breakdown.PromptLines,
// part of the system row). A feature that adds a line to stablePrompt
// names it here and in tokens.PromptLines.

import (
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/todo"
)

// namedPromptLines estimates the named lines stablePrompt holds (a plain
// character estimate: they are short and fixed).
var namedPromptLines = sync.OnceValue(func() tokens.PromptLines {
	count := func(line string) int64 {
		if !strings.Contains(stablePrompt, line) {
			return 0
		}
		return int64(tokens.Chars{}.Count(line))
	}
	return tokens.PromptLines{Todo: count(todo.PromptLine)}
})

// withPromptLines is r with the named lines of the prompt in its
// breakdown: every reading of a session carries them.
func withPromptLines(r tokens.Reading) tokens.Reading {
	r.Breakdown.PromptLines = namedPromptLines()
	return r
}
