// Package memory keeps facts across sessions: what a project's sessions
// learned (how to test, where things are, what the user decided), and
// what the user wants every project to know. The memories live in the
// database (storage.Memories); this package is what the model and the
// prompt see of them.
//
// Contract:
//   - A memory's scope is a project directory (the session's repository,
//     or its directory outside one: project.go) or the user
//     (storage.ScopeUser); a session sees both.
//   - remember{text} stores one, as config memory.remember says: "ask"
//     (the permission dialog shows the text), "propose" (stored as
//     proposed: not counted, searched nor sent until the user accepts it
//     in /memory), "allow", or "off" (the tool is not offered). A text
//     holding a credential (the API key, a known token shape:
//     secrets.Shaped) is refused with a tool error and nothing is stored.
//     It records the session and the message it came from.
//   - memory_search{query} returns the matching memories (any word, best
//     first): retrieval is on demand, as a tool result, which a
//     compaction may prune and the model may search again.
//   - Block is the system prompt's memory section: how many memories
//     exist and the pinned ones, verbatim. A session makes it once, when
//     it opens, so that a memory added mid-session never changes the
//     bytes of a request's earlier part (the prompt cache holds); the
//     next session counts it. No memories: no section.
package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/storage"
)

// BlockHeader starts the system prompt's memory section: /context finds
// the section by it (Tokens).
const BlockHeader = "Project memory:"

// maxPinnedChars bounds the pinned memories copied into the prompt; the
// rest are named as left out (memory_search still finds them).
const maxPinnedChars = 4000

// Block is the system prompt's memory section for a session in dir: the
// count of the memories it can search, and the pinned ones, verbatim up to
// maxPinnedChars. It is "" when there are none, or when they cannot be
// read (the prompt goes without, the session does not fail).
func Block(ctx context.Context, q storage.Memories, dir string) string {
	scopes := Scopes(dir)
	n, err := q.Count(ctx, scopes...)
	if err != nil || n == 0 {
		return ""
	}
	pinned, err := q.Pinned(ctx, scopes...)
	if err != nil {
		return ""
	}
	var b strings.Builder
	noun := "facts are"
	if n == 1 {
		noun = "fact is"
	}
	fmt.Fprintf(&b, "%s %d %s remembered from earlier sessions for this project and this user (not shown here). "+
		"Before reading files or running commands to find out something an earlier session may have learned "+
		"(how to build, test or deploy; conventions; decisions), search them with memory_search; "+
		"save a lasting fact with remember.\n", BlockHeader, n, noun)
	used, left := 0, 0
	for _, m := range pinned {
		if used+len(m.Text) > maxPinnedChars {
			left++
			continue
		}
		if used == 0 {
			b.WriteString("Pinned memories (always true here):\n")
		}
		used += len(m.Text)
		fmt.Fprintf(&b, "- %s\n", oneLine(m.Text))
	}
	if left > 0 {
		fmt.Fprintf(&b, "(%d more pinned memories left out for room: memory_search finds them)\n", left)
	}
	return b.String()
}

// Tokens estimates the memory section of system messages (a plain
// character estimate, as the prompt's named lines are): the row /context
// shows. 0 when there is none.
func Tokens(system []string) int64 {
	for _, s := range system {
		if i := strings.Index(s, BlockHeader); i >= 0 {
			return int64(tokens.Chars{}.Count(s[i:]))
		}
	}
	return 0
}

// oneLine folds a memory's lines into one, so that each stays one item.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
