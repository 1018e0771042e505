package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// outsideTool is a tool from outside the agent (an MCP server's), which
// asks before it runs unless the configuration allows it.
type outsideTool struct {
	name, server string
	ran          *int
}

func (o outsideTool) Name() string        { return o.name }
func (o outsideTool) Description() string { return "a tool of a server" }
func (o outsideTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
}
func (o outsideTool) ReadOnly() bool           { return false }
func (o outsideTool) PermissionKeys() []string { return []string{o.name, o.server} }
func (o outsideTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	*o.ran++
	return Result{Output: "ran"}, nil
}

func TestGatedToolsAskByDefault(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	ran := 0
	tool := outsideTool{name: "srv__search", server: "srv", ran: &ran}
	reg := NewRegistry().With(tool)
	call := mkCall("srv__search", map[string]any{"q": "x"})

	t.Run("headless: denied with how to allow", func(t *testing.T) {
		res, err := reg.RunChecked(ctx, env, NewPermissions(nil, nil, false), call)
		if err != nil || !res.IsError || res.Metadata["permission"] != "denied" || ran != 0 {
			t.Fatalf("%+v %v ran=%d", res, err, ran)
		}
		for _, want := range []string{"needs approval", `"srv__search": "allow"`, `"srv": "allow"`, "--yes"} {
			if !strings.Contains(res.Output, want) {
				t.Errorf("denial %q lacks %q", res.Output, want)
			}
		}
	})
	t.Run("asks, and a session grant covers the tool only", func(t *testing.T) {
		a := &fakeAsker{reply: AllowSession}
		p := NewPermissions(nil, a, false)
		for range 2 {
			if ok, _, err := reg.Check(ctx, env, p, call); !ok || err != nil {
				t.Fatalf("denied: %v", err)
			}
		}
		if a.count() != 1 {
			t.Fatalf("asked %d times", a.count())
		}
		req := a.asked[0]
		if req.Tool != "srv__search" || !strings.Contains(req.Title, `"q":"x"`) || !strings.Contains(req.Reason, "MCP") {
			t.Fatalf("request %+v", req)
		}
		other := outsideTool{name: "srv__other", server: "srv", ran: &ran}
		if ok, _, _ := NewRegistry().With(other).Check(ctx, env, p, mkCall("srv__other", map[string]any{})); !ok || a.count() != 2 {
			t.Fatalf("the grant of srv__search covered srv__other (asked %d)", a.count())
		}
	})
	t.Run("the most specific key wins", func(t *testing.T) {
		cases := []struct {
			modes map[string]Mode
			ok    bool
			asked int
		}{
			{map[string]Mode{"srv": ModeAllow}, true, 0},
			{map[string]Mode{"srv": ModeDeny}, false, 0},
			{map[string]Mode{"srv": ModeDeny, "srv__search": ModeAllow}, true, 0},
			{map[string]Mode{"srv": ModeAllow, "srv__search": ModeDeny}, false, 0},
			{map[string]Mode{"srv": ModeAllow, "srv__search": ModeAsk}, false, 1},
		}
		for _, c := range cases {
			a := &fakeAsker{reply: Deny}
			ok, denial, err := reg.Check(ctx, env, NewPermissions(c.modes, a, false), call)
			if ok != c.ok || err != nil || a.count() != c.asked {
				t.Errorf("%v: ok=%v asked=%d (%q)", c.modes, ok, a.count(), denial)
			}
		}
	})
	t.Run("a server named like a built-in tool does not take its mode", func(t *testing.T) {
		read := outsideTool{name: "read__x", server: "read", ran: &ran}
		r := NewRegistry().With(read)
		for _, modes := range []map[string]Mode{nil, {"read": ModeAllow}} {
			if ok, _, _ := r.Check(ctx, env, NewPermissions(modes, nil, false), mkCall("read__x", map[string]any{})); ok {
				t.Errorf("%v: read__x allowed by read's mode", modes)
			}
		}
	})
	t.Run("--yes approves, deny stays denied", func(t *testing.T) {
		if ok, _, _ := reg.Check(ctx, env, NewPermissions(nil, nil, true), call); !ok {
			t.Fatal("--yes did not approve")
		}
		ok, denial, _ := reg.Check(ctx, env, NewPermissions(map[string]Mode{"srv": ModeDeny}, nil, true), call)
		if ok || !strings.Contains(denial, "permissions.srv") {
			t.Fatalf("ok=%v %q", ok, denial)
		}
	})
}

func TestSchemasFromOutsideParse(t *testing.T) {
	// JSON schemas servers send use what the registry does not check
	// (type lists, boolean schemas, tuple items, schema-valued
	// additionalProperties): the registry takes them, validates what it
	// knows and never panics.
	raw := `{"type":"object","properties":{
		"a":{"type":["string","null"]},
		"b":true,
		"c":{"type":"array","items":[{"type":"string"}]},
		"d":{"type":"object","additionalProperties":{"type":"string"}},
		"e":{"type":"integer","minimum":"1"},
		"f":{"type":"string","enum":"x"}
	},"required":["a",3],"additionalProperties":{"type":"number"}}`
	tool := rawTool{name: "srv__x", schema: raw}
	reg := NewRegistry().With(tool)
	res := reg.Run(context.Background(), newEnv(t), mkCall("srv__x", map[string]any{"a": "s", "b": 1, "c": []any{1}, "d": map[string]any{}, "e": 5, "z": 1}))
	if res.IsError {
		t.Fatalf("valid input refused: %s", res.Output)
	}
	res = reg.Run(context.Background(), newEnv(t), mkCall("srv__x", map[string]any{"e": "five"}))
	if !res.IsError || !strings.Contains(res.Output, `missing required parameter "a"`) || !strings.Contains(res.Output, `"e" must be a number`) {
		t.Fatalf("invalid input: %+v", res)
	}
}

type rawTool struct{ name, schema string }

func (r rawTool) Name() string                { return r.name }
func (r rawTool) Description() string         { return "raw" }
func (r rawTool) Parameters() json.RawMessage { return json.RawMessage(r.schema) }
func (r rawTool) ReadOnly() bool              { return false }
func (r rawTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	return Result{Output: "ok"}, nil
}
