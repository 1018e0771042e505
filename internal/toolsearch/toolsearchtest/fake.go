// Package toolsearchtest makes many MCP-like tools for tests and
// benchmarks: names SERVER__ACTION_OBJECT over a few well-known servers,
// a one-sentence description and a JSON schema of 300–600 bytes, like the
// tools real servers list. The same n always gives the same tools.
package toolsearchtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/tools"
)

var (
	servers = []string{"github", "jira", "slack", "postgres", "sentry", "linear", "notion", "browser", "k8s", "stripe"}
	actions = []string{"create", "list", "get", "update", "delete", "search", "archive", "assign", "export", "watch"}
	objects = []string{"issue", "comment", "user", "project", "label", "file", "webhook", "release", "event", "report"}
)

// Tool is a fake MCP tool: it answers "NAME ran with INPUT".
type Tool struct {
	name, desc string
	schema     json.RawMessage
}

func (t *Tool) Name() string                { return t.name }
func (t *Tool) Description() string         { return t.desc }
func (t *Tool) Parameters() json.RawMessage { return t.schema }
func (t *Tool) ReadOnly() bool              { return false }
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	return tools.Result{Output: t.name + " ran with " + string(call.Input)}, nil
}

// Tools returns n tools (up to 1,000 distinct names), servers in turn.
func Tools(n int) []tools.Tool {
	out := make([]tools.Tool, 0, n)
	for i := 0; i < n; i++ {
		server := servers[i%len(servers)]
		k := i / len(servers)
		// every action meets every object within 100 tools of a server
		action, object := actions[k%len(actions)], objects[(k/len(actions)+k)%len(objects)]
		name := fmt.Sprintf("%s__%s_%s", server, action, object)
		article := "a"
		if strings.ContainsRune("aeiou", rune(object[0])) {
			article = "an"
		}
		desc := fmt.Sprintf("%s %s %s in %s. Returns the result as JSON; fails with the server's message when the %s does not exist or access is denied.",
			strings.ToUpper(action[:1])+action[1:], article, object, server, object)
		out = append(out, &Tool{name: name, desc: desc, schema: schema(i, server, object)})
	}
	return out
}

// schema is a realistic parameter schema of 300–600 bytes.
func schema(i int, server, object string) json.RawMessage {
	props := []string{
		fmt.Sprintf(`"%s_id":{"type":"string","description":"The id of the %s in %s."}`, object, object, server),
		fmt.Sprintf(`"workspace":{"type":"string","description":"The %s workspace or organisation that owns it."}`, server),
		`"limit":{"type":"integer","description":"How many items to return at most.","minimum":1,"maximum":100}`,
		`"fields":{"type":"array","items":{"type":"string"},"description":"Which fields to include in the answer."}`,
		`"dry_run":{"type":"boolean","description":"Check the request without changing anything."}`,
	}
	n := 2 + i%4 // 2..5 properties
	s := fmt.Sprintf(`{"type":"object","properties":{%s},"required":["%s_id"],"additionalProperties":false}`,
		strings.Join(props[:n], ","), object)
	if len(s) < 300 { // two properties: say more about the id, as servers do
		s = strings.Replace(s, `in `+server+`."`, `in `+server+`, as shown in its web interface or returned by the list call."`, 1)
	}
	return json.RawMessage(s)
}

// Source is a tools.Source whose tools a test can change.
type Source struct {
	mu    sync.Mutex
	tools []tools.Tool
}

// NewSource returns a source of ts.
func NewSource(ts []tools.Tool) *Source { return &Source{tools: ts} }

// Tools returns the source's tools now.
func (s *Source) Tools() []tools.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// Set replaces the source's tools.
func (s *Source) Set(ts []tools.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = ts
}

// Huge returns a tool whose schema alone is about schemaBytes long (a
// property with a long description), as a server may list by mistake.
func Huge(name string, schemaBytes int) tools.Tool {
	desc, _ := json.Marshal(strings.Repeat("huge schema text ", max(1, schemaBytes/17)))
	return &Tool{
		name:   name,
		desc:   "A tool whose schema is huge.",
		schema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":` + string(desc) + `}}}`),
	}
}
