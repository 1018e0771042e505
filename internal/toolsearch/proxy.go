package toolsearch

// The proxy: call_tool{name, arguments} calls a tool tool_search found
// before that tool joins the request's tools array. The array is part of
// the prompt's cached prefix, so a tool added to it mid-stretch re-bills
// the whole prompt; a found tool is called through this one fixed tool
// instead (its schema never changes) until the next cache boundary (a
// compaction, a prune batch, a change the user made), when the loop calls
// Catalog.Join and the found tools are offered by their own names.
//
// The proxy is resolved by the loop, not run: Unwrap turns a call of it
// into a call of the tool it names, before the permission check, the
// hooks and the run, so the named tool is asked about, gated and logged
// as itself. The proxy's own Run only answers a call Unwrap could not
// resolve (its input is not {name, arguments}) with what to send instead.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxloop/agent/internal/tools"
)

// ProxyName is the proxy's name, as the model calls it.
const ProxyName = "call_tool"

// proxyParameters is call_tool's schema: it never changes.
var proxyParameters = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The name of a tool tool_search found."},"arguments":{"type":"object","description":"The tool's arguments, as its parameters say."}},"required":["name","arguments"],"additionalProperties":false}`)

// proxyDescription is call_tool's description: it never changes.
const proxyDescription = "Calls a tool that tool_search found and that is not listed here yet, by its name, with its arguments. " +
	"A found tool is listed by its own name later; until then call it through this."

// proxyTool is call_tool (see the file comment).
type proxyTool struct{}

func (proxyTool) Name() string                { return ProxyName }
func (proxyTool) Description() string         { return proxyDescription }
func (proxyTool) Parameters() json.RawMessage { return proxyParameters }
func (proxyTool) ReadOnly() bool              { return false }

// Run answers a call Unwrap could not resolve; it never runs another tool.
func (proxyTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	return tools.Result{IsError: true, Title: ProxyName,
		Output: `call_tool needs {"name": "<a tool tool_search found>", "arguments": {…its parameters…}}.`}, nil
}

// PermissionKeys gates the proxy by its own name should it ever be
// checked unresolved: it runs nothing then.
func (proxyTool) PermissionKeys() []string { return []string{ProxyName} }

// proxyInput is call_tool's input.
type proxyInput struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Unwrap returns the call a call_tool call stands for: the named tool with
// the arguments as its input, the same id and callbacks. Any other call,
// and a call_tool call whose input is not {name, arguments} with a name
// other than its own, comes back as it is.
func Unwrap(call tools.Call) tools.Call {
	name, args, ok := proxied(call.Name, call.Input)
	if !ok {
		return call
	}
	call.Name, call.Input = name, args
	return call
}

// proxied decodes a call_tool input: the tool named and its arguments
// ("{}" when none were given).
func proxied(tool string, input json.RawMessage) (name string, args json.RawMessage, ok bool) {
	if tool != ProxyName {
		return "", nil, false
	}
	var in proxyInput
	if json.Unmarshal(input, &in) != nil {
		return "", nil, false
	}
	name = strings.TrimSpace(in.Name)
	if name == "" || name == ProxyName {
		return "", nil, false
	}
	args = in.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	return name, args, true
}

// Join makes the active tools the joined ones: those offered by their own
// names (after tool_search and call_tool), in the order they became
// active. The loop calls it at a cache boundary only. It reports whether
// the joined set changed.
func (c *Catalog) Join() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, len(c.active))
	for i, a := range c.active {
		names[i] = a.name
	}
	if slices.Equal(names, c.joined) {
		return false
	}
	c.joined = names
	return true
}

// SetJoined sets the joined tools, as a resumed session had them at its
// last boundary.
func (c *Catalog) SetJoined(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.joined = append([]string(nil), names...)
}

// Joined returns the names of the joined tools.
func (c *Catalog) Joined() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.joined...)
}

// Pending reports whether an active tool has not joined yet: the next
// boundary changes the tools array.
func (c *Catalog) Pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range c.active {
		if !slices.Contains(c.joined, a.name) {
			return true
		}
	}
	return false
}

// describeProxy is the line a tool_search result adds about call_tool.
func describeProxy() string {
	return fmt.Sprintf("Call them through %s{name, arguments} until they are listed by their own names.", ProxyName)
}
