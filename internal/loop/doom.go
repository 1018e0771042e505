package loop

import (
	"bytes"
	"encoding/json"
)

// DoomThreshold is how many identical tool calls in a row make a doom loop.
const DoomThreshold = 3

// doomGuard notices the same tool called with the same input several times
// in a row within a turn, across steps.
type doomGuard struct {
	last  string
	count int
}

// observe records a call and reports whether it is the DoomThreshold-th
// identical call in a row.
func (g *doomGuard) observe(name, input string) bool {
	key := name + "\x00" + canonicalJSON(input)
	if key == g.last {
		g.count++
	} else {
		g.last, g.count = key, 1
	}
	return g.count >= DoomThreshold
}

// reset forgets the history (a new turn, or the user said continue).
func (g *doomGuard) reset() { g.last, g.count = "", 0 }

// canonicalJSON makes inputs that differ only in spacing or key order equal.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return s
	}
	return b.String()
}
