package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// maxNameLen is the longest tool name providers accept
// (^[a-zA-Z0-9_-]{1,64}$).
const maxNameLen = 64

// sanitise replaces what a tool name may not hold with '_'.
func sanitise(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// toolName is the name a server's tool is offered under: SERVER__TOOL,
// sanitised; a name too long keeps its start and ends with a digest of
// the whole, so it stays the same from one run to the next.
func toolName(server, tool string) string {
	name := sanitise(server) + "__" + sanitise(tool)
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	return name[:maxNameLen-len(suffix)] + suffix
}

// uniqueName is toolName made unique among taken (which it joins): a
// collision ("a.b" and "a_b" both sanitise to a_b) gets _2, _3...
func uniqueName(server, tool string, taken map[string]bool) string {
	name := toolName(server, tool)
	for n := 2; taken[name]; n++ {
		suffix := fmt.Sprintf("_%d", n)
		base := toolName(server, tool)
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
		}
		name = base + suffix
	}
	taken[name] = true
	return name
}
