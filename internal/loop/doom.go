package loop

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// DoomThreshold is how many identical tool calls in a row make a doom loop.
const DoomThreshold = 3

// nearSimilarity is how alike (1 - edit distance / length, of the
// normalised inputs) calls must be to count as variations of one call:
// high enough that a different command or file is not one, low enough
// that a changed number, flag value or quoted word is.
const nearSimilarity = 0.8

// doomGuard notices, within a turn and across steps:
//   - the same tool called with the same input DoomThreshold times in a
//     row;
//   - near-repeats: DoomThreshold bash calls in a row whose commands
//     differ only a little (numbers, spacing and quoted arguments
//     normalised, then nearSimilarity), the ones before the last having
//     failed — a failing command retried with small variations;
//   - an edit reverted and re-applied: on one path, a change A→B, its
//     reverse B→A, then A→B again (edits by old and new string, writes by
//     the content before and after).
//
// observe is called before a call runs, result after; result may come
// from the concurrent calls of a step, so a lock guards the state.
type doomGuard struct {
	mu    sync.Mutex
	last  string
	count int
	// recent are the turn's latest calls, oldest first, at most
	// DoomThreshold.
	recent []doomCall
	// paths are the changes made to each path (edit, write), newest last.
	paths map[string]*pathChanges
}

type doomCall struct {
	name, key, norm string
	failed          bool
}

// pathChanges are a path's last two changes and its last written content.
type pathChanges struct {
	changes [][2]string
	content string
	written bool
}

// Reasons a call is refused, completing "doom loop: TOOL was called …".
const (
	doomSame      = "%d times in a row with the same input"
	doomNear      = "%d times in a row with small variations, failing each time"
	doomReapplied = "to re-apply a change it had reverted (A→B, B→A, A→B)"
)

// observe records a call and reports why it makes a doom loop ("" when
// it does not): one of doomSame, doomNear, doomReapplied.
func (g *doomGuard) observe(name, input string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := name + "\x00" + canonicalJSON(input)
	if key == g.last {
		g.count++
	} else {
		g.last, g.count = key, 1
	}
	c := doomCall{name: name, key: key, norm: normaliseCall(name, input)}
	near := name == "bash" && len(g.recent) >= DoomThreshold-1
	for _, prev := range g.recent[max(0, len(g.recent)-(DoomThreshold-1)):] {
		near = near && prev.name == name && prev.failed && similarity(prev.norm, c.norm) >= nearSimilarity
	}
	g.recent = append(g.recent, c)
	if len(g.recent) > DoomThreshold {
		g.recent = g.recent[1:]
	}
	reapplied := g.change(name, input)
	switch {
	case g.count >= DoomThreshold:
		return doomSame
	case near:
		return doomNear
	case reapplied:
		return doomReapplied
	}
	return ""
}

// result records whether the newest call with this name and input failed.
func (g *doomGuard) result(name, input string, failed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := name + "\x00" + canonicalJSON(input)
	for i := len(g.recent) - 1; i >= 0; i-- {
		if g.recent[i].key == key {
			g.recent[i].failed = failed
			return
		}
	}
}

// change records an edit or a write and reports whether it re-applies a
// change that was just reverted.
func (g *doomGuard) change(name, input string) bool {
	var in struct {
		Path      string `json:"path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
	}
	if (name != "edit" && name != "write") || json.Unmarshal([]byte(input), &in) != nil || in.Path == "" {
		return false
	}
	if g.paths == nil {
		g.paths = map[string]*pathChanges{}
	}
	pc := g.paths[in.Path]
	if pc == nil {
		pc = &pathChanges{}
		g.paths[in.Path] = pc
	}
	ch := [2]string{in.OldString, in.NewString}
	if name == "write" {
		before := "\x00unknown"
		if pc.written {
			before = pc.content
		}
		ch = [2]string{before, in.Content}
		pc.content, pc.written = in.Content, true
	}
	n := len(pc.changes)
	reapplied := n >= 2 && pc.changes[n-2] == ch && pc.changes[n-1] == [2]string{ch[1], ch[0]}
	pc.changes = append(pc.changes, ch)
	if len(pc.changes) > 2 {
		pc.changes = pc.changes[1:]
	}
	return reapplied
}

// reset forgets the history (a new turn, or the user said continue).
func (g *doomGuard) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last, g.count, g.recent, g.paths = "", 0, nil, nil
}

// quotedRe and numberRe are compiled on first use: a start pays nothing.
var (
	quotedRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'[^']*'`) })
	numberRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })
)

// normaliseCall is what near-repeats are compared by: a bash call's
// command (another tool's canonical input), with quoted strings, numbers
// and runs of white space each made one placeholder.
func normaliseCall(name, input string) string {
	s := canonicalJSON(input)
	if name == "bash" {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(input), &in) == nil {
			s = in.Command
		}
	}
	s = quotedRe().ReplaceAllString(s, `"Q"`)
	s = numberRe().ReplaceAllString(s, "N")
	return strings.Join(strings.Fields(s), " ")
}

// maxCompared bounds the inputs similarity compares (their heads).
const maxCompared = 1000

// similarity is 1 - the edit distance of a and b over the longer length
// (1: equal).
func similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), maxCompared)], rb[:min(len(rb), maxCompared)]
	n := max(len(ra), len(rb))
	if n == 0 {
		return 1
	}
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(rb)])/float64(n)
}

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
