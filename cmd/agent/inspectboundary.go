package main

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/termsafe"
)

// boundaryDetail is the last column of a cache_boundary row: why the
// request broke the prompt cache's prefix, where, and the tools found by
// tool_search that joined the tools array then.
func boundaryDetail(e timelineEntry) string {
	b := e.Boundary
	d := "prompt cache re-written: " + b.Reason
	if b.AtMessage >= 0 {
		d += fmt.Sprintf(" (from message %d)", b.AtMessage)
	} else {
		d += " (from the tools array)"
	}
	if b.JoinedNow > 0 {
		last := b.Joined[max(0, len(b.Joined)-b.JoinedNow):]
		d += fmt.Sprintf("; %d found tools joined: %s", b.JoinedNow, strings.Join(last, ", "))
	}
	return termsafe.Strip(oneLine(d, 160))
}
