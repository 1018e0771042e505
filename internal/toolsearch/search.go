package toolsearch

// The tool_search tool and its ranking. Rank is a keyword match, not an
// index: a search happens a few times a session, not every step, and
// scoring 1,000 tools takes 1–3 ms (BenchmarkRank).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/tools"
)

// searchParameters is tool_search's schema.
var searchParameters = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Keywords (\"create issue\", \"github pull request\") or exact tool names."}},"required":["query"],"additionalProperties":false}`)

// maxServersNamed bounds the servers the description names.
const maxServersNamed = 8

// maxDescriptionBytes bounds a found tool's description in a result: the
// whole of it is in the tool's definition from the next step on.
const maxDescriptionBytes = 1000

// searchTool is tool_search over a catalog; its description names the
// servers of the inner tools it was made for.
type searchTool struct {
	c     *Catalog
	desc  string
	limit int64 // of one tool (ToolLimit); 0: none
}

func newSearchTool(c *Catalog, inner []tools.Tool, limitTokens int64) *searchTool {
	return &searchTool{c: c, desc: describe(inner), limit: limitTokens}
}

// describe is tool_search's description: how many tools there are, and
// from which servers.
func describe(inner []tools.Tool) string {
	names, counts := servers(inner)
	parts := make([]string, 0, min(len(names), maxServersNamed)+1)
	for i, n := range names {
		if i == maxServersNamed {
			parts = append(parts, fmt.Sprintf("and %d more servers", len(names)-i))
			break
		}
		if n == "" {
			n = "other"
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", n, counts[names[i]]))
	}
	return fmt.Sprintf("Finds the tools not listed here to save context: %d tools of MCP servers %s. "+
		"Give a few keywords (a server's name narrows it down): the best matches come back with their parameters "+
		"and are yours to call through call_tool at once, and by their own names once they are listed.",
		len(inner), strings.Join(parts, ", "))
}

func (s *searchTool) Name() string                { return Name }
func (s *searchTool) Description() string         { return s.desc }
func (s *searchTool) Parameters() json.RawMessage { return searchParameters }
func (s *searchTool) ReadOnly() bool              { return true }

func (s *searchTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	var in struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("tool_search: decode input: %w", err)
	}
	title := "tool_search: " + in.Query
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return tools.Result{Output: "The query is empty: give a few keywords for what you need.", Title: title, IsError: true}, nil
	}
	inner := s.c.inner.Tools()
	ranked := Rank(inner, query)
	// The best matches that can be sent, and those too large to be that
	// ranked among them.
	var found, large []int
	for _, ix := range ranked {
		if len(found) == s.c.maxResults {
			break
		}
		if TooLarge(inner[ix], s.limit) {
			large = append(large, ix)
		} else {
			found = append(found, ix)
		}
	}
	names := make([]string, len(found))
	for i, ix := range found {
		names[i] = inner[ix].Name()
	}
	// The best match last: it is the most recently used, the last evicted.
	for i := len(names) - 1; i >= 0; i-- {
		s.c.activate(names[i])
	}
	meta := map[string]any{"activated": names, "matches": len(ranked)}
	var text string
	if len(found) > 0 || len(large) == 0 {
		text = resultText(inner, query, found, len(ranked)-len(large), !s.c.immediate)
	}
	if len(large) > 0 {
		var b strings.Builder
		b.WriteString(text)
		tooLarge := make([]string, len(large))
		for i, ix := range large {
			t := inner[ix]
			tooLarge[i] = t.Name()
			fmt.Fprintf(&b, "\n%s matches but is too large to use: its definition alone is %d tokens, over the %d one tool may take of the context window. It is not offered; tell the user if it was the tool needed.\n",
				t.Name(), Cost(t), s.limit)
		}
		meta["too_large"] = tooLarge
		text = strings.TrimSpace(b.String())
	}
	return tools.Result{Output: text, Title: title, Metadata: meta}, nil
}

// resultText is what the model reads: the tools found with their
// parameters, or, when nothing matched, the servers to search by.
func resultText(inner []tools.Tool, query string, found []int, matches int, proxy bool) string {
	var b strings.Builder
	if len(found) == 0 {
		names, counts := servers(inner)
		parts := make([]string, len(names))
		for i, n := range names {
			label := n
			if n == "" {
				label = "other"
			}
			parts[i] = fmt.Sprintf("%s (%d tools)", label, counts[n])
		}
		fmt.Fprintf(&b, "No tool matches %q. The servers are %s: search again with other words, such as a server's name or an action.", query, strings.Join(parts, ", "))
		return b.String()
	}
	if proxy {
		fmt.Fprintf(&b, "%d of %d tools match %q. These are yours to call; %s\n", len(found), len(inner), query, describeProxy())
	} else {
		fmt.Fprintf(&b, "%d of %d tools match %q. These are yours to call from your next step on:\n", len(found), len(inner), query)
	}
	for _, ix := range found {
		t := inner[ix]
		desc := t.Description()
		if len(desc) > maxDescriptionBytes {
			desc = strings.ToValidUTF8(desc[:maxDescriptionBytes], "") + "…"
		}
		fmt.Fprintf(&b, "\n%s\n%s\nParameters: %s\n", t.Name(), strings.TrimSpace(desc), compactJSON(t.Parameters()))
	}
	if more := matches - len(found); more > 0 {
		fmt.Fprintf(&b, "\n%d more tools match less well: search with more specific words to see them.\n", more)
	}
	return b.String()
}

// compactJSON is a schema without its insignificant spaces.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Scores of one query word against a tool.
const (
	scoreWholeName  = 100 // the query names the tool exactly
	scoreNameWord   = 6   // a word of the name
	scoreNamePrefix = 4   // the start of a word of the name, or a word of the name starts it
	scoreDescWord   = 2   // a word of the description
	scoreDescPrefix = 1
)

// stopWords say nothing about which tool is meant.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "for": true, "of": true, "and": true, "or": true,
	"in": true, "on": true, "with": true, "by": true, "from": true, "at": true, "is": true, "it": true,
	"this": true, "that": true, "tool": true, "tools": true, "me": true, "my": true,
}

// Rank returns the indexes in ts of the tools that match query, best
// first. A tool named exactly by a word of the query comes first; then
// each query word counts where it matches a word of the tool's name
// (server included) or, for less, of its description, whole or as a
// prefix. Ties keep the order of ts. Tools that match nothing are left
// out.
func Rank(ts []tools.Tool, query string) []int {
	exact := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return unicode.IsSpace(r) || r == ',' }) {
		exact[f] = true
	}
	var terms []string
	seen := map[string]bool{}
	for _, w := range words(query) {
		if !stopWords[w] && !seen[w] {
			seen[w] = true
			terms = append(terms, w)
		}
	}
	type hit struct{ ix, score, terms int }
	var hits []hit
	var name, desc []string // reused: a search over 1,000 tools allocates little
	for i, t := range ts {
		score, matched := 0, 0
		if exact[strings.ToLower(t.Name())] {
			score += scoreWholeName
		}
		if len(terms) > 0 {
			name, desc = appendWords(name[:0], t.Name()), appendWords(desc[:0], t.Description())
			for _, q := range terms {
				s := best(q, name, scoreNameWord, scoreNamePrefix) + best(q, desc, scoreDescWord, scoreDescPrefix)
				if s > 0 {
					score += s
					matched++
				}
			}
		}
		if score > 0 {
			hits = append(hits, hit{i, score, matched})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].score != hits[b].score {
			return hits[a].score > hits[b].score
		}
		return hits[a].terms > hits[b].terms
	})
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.ix
	}
	return out
}

// best scores q against words: whole if one equals it, prefix if one
// starts with it or starts it (three letters at least: "req" finds
// "request", "requests" finds "request").
func best(q string, ws []string, whole, prefix int) int {
	score := 0
	for _, w := range ws {
		if w == q {
			return whole
		}
		if len(q) >= 3 && len(w) >= 3 && (strings.HasPrefix(w, q) || strings.HasPrefix(q, w)) {
			score = prefix
		}
	}
	return score
}

// words splits s into lower-case words at anything not a letter or a digit
// and where a lower-case letter meets an upper-case one ("createIssue",
// "github__list_pull_requests").
func words(s string) []string { return appendWords(nil, s) }

// appendWords appends the words of s to out.
func appendWords(out []string, s string) []string {
	lower := strings.ToLower(s)
	ascii := isASCII(s) // then the words are slices of lower, at the same offsets
	cut := func(from, to int) {
		if ascii {
			out = append(out, lower[from:to])
		} else {
			out = append(out, strings.ToLower(s[from:to]))
		}
	}
	start := -1
	var prev rune
	for i, r := range s {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			if start >= 0 {
				cut(start, i)
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			cut(start, i)
			start = i
		}
		prev = r
	}
	if start >= 0 {
		cut(start, len(s))
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
