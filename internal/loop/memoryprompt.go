package loop

// memoryprompt.go: the memory section of the system prompt
// (internal/memory). Open makes it once, from the memories of the
// session's directory and of the user, and every system prompt of the
// Runner ends with that same text: a memory added, edited or pinned
// mid-session never changes the bytes of a request's earlier part (the
// next session, or the same one opened again, counts it). A subagent's
// prompt has none. /context shows its estimate as the "memory" row.

import (
	"context"
	"slices"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/memory"
	"github.com/ctxloop/agent/internal/storage"
)

// withMemory sets opt's SystemPrompt to end its last message with the
// memory section of dir as it is now, and its estimate in
// opt.memoryTokens; opt is left alone when there is no section or the
// session is a subagent's.
func withMemory(ctx context.Context, opt *Options, st *storage.Store, dir string) {
	if opt.AskFrom != "" {
		return
	}
	block := memory.Block(ctx, st.Memories(), dir)
	if block == "" {
		return
	}
	make := opt.SystemPrompt
	if make == nil {
		make = SystemPrompt
	}
	opt.SystemPrompt = func(env Environment) []string {
		msgs := slices.Clone(make(env))
		if len(msgs) == 0 {
			return []string{block}
		}
		msgs[len(msgs)-1] += "\n" + block
		return msgs
	}
	opt.memoryTokens = memory.Tokens([]string{block})
}

// withMemoryRow is a stored session's reading r with the memory row of
// the section its next Open would send (the read-only commands).
func withMemoryRow(ctx context.Context, st *storage.Store, dir string, r tokens.Reading) tokens.Reading {
	r.Breakdown.PromptLines.Memory = memory.Tokens([]string{memory.Block(ctx, st.Memories(), dir)})
	return r
}
