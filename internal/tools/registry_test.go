package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRegistryContract(t *testing.T) {
	r := NewRegistry()
	want := []string{"bash", "read", "write", "edit", "grep", "glob", "ls", "bash_output", "bash_kill"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	params := map[string][]string{
		"bash":        {"background", "command", "timeout_s"},
		"bash_output": {"id", "since"},
		"bash_kill":   {"id"},
		"read":        {"limit", "offset", "path"},
		"write":       {"content", "path"},
		"edit":        {"new_string", "old_string", "path", "replace_all"},
		"grep":        {"include", "path", "pattern"},
		"glob":        {"path", "pattern"},
		"ls":          {"path"},
	}
	readOnly := map[string]bool{"read": true, "grep": true, "glob": true, "ls": true, "bash_output": true}
	for i, def := range r.OpenAITools() {
		name := def.Function.Name
		if name != want[i] {
			t.Fatalf("OpenAITools()[%d] = %s, want %s", i, name, want[i])
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(def.Function.Parameters.(json.RawMessage), &schema); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", name, err)
		}
		var names []string
		for p := range schema.Properties {
			names = append(names, p)
		}
		sort.Strings(names)
		if schema.Type != "object" || !slices.Equal(names, params[name]) {
			t.Errorf("%s parameters = %v (%s), want %v", name, names, schema.Type, params[name])
		}
		tool, _ := r.Get(name)
		if tool.ReadOnly() != readOnly[name] {
			t.Errorf("%s ReadOnly = %v", name, tool.ReadOnly())
		}
		if len(def.Function.Description) < 100 {
			t.Errorf("%s: description too thin for a model: %q", name, def.Function.Description)
		}
	}
	if _, ok := r.Get("nope"); ok {
		t.Error("Get found an unknown tool")
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name  string
		tool  string
		input string
		wants []string
	}{
		{"unknown tool", "delete_everything", `{}`, []string{`unknown tool "delete_everything"`, "bash, read, write, edit, grep, glob, ls"}},
		{"invalid JSON", "read", `{"path": "a.go"`, []string{"not valid JSON", "path (string, required)"}},
		{"not an object", "read", `["a.go"]`, []string{"must be a JSON object"}},
		{"missing required", "edit", `{"path": "a.go", "new_string": "x"}`, []string{`missing required parameter "old_string"`}},
		{"wrong type", "read", `{"path": "a.go", "offset": "10"}`, []string{`parameter "offset" must be a number, got string "10"`}},
		{"not whole", "read", `{"path": "a.go", "limit": 1.5}`, []string{`"limit" must be a whole number`}},
		{"below minimum", "read", `{"path": "a.go", "limit": 0}`, []string{`"limit" must be at least 1`}},
		{"boolean", "edit", `{"path": "a", "old_string": "a", "new_string": "b", "replace_all": "yes"}`, []string{`"replace_all" must be true or false`}},
		{"unknown parameter", "bash", `{"command": "true", "cwd": "/"}`, []string{`unknown parameter "cwd"`, "command (string, required), timeout_s (number)"}},
		{"empty input", "grep", ``, []string{`missing required parameter "pattern"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, tt.tool, tt.input)
			if !res.IsError {
				t.Fatalf("not an error: %q", res.Output)
			}
			mustContain(t, res.Output, tt.wants...)
		})
	}
}

// fakeTool returns a fixed output, or panics.
type fakeTool struct {
	name   string
	output string
	panics bool
	err    error
}

func (f fakeTool) Name() string                { return f.name }
func (f fakeTool) Description() string         { return "fake" }
func (f fakeTool) Parameters() json.RawMessage { return objectSchema() }
func (f fakeTool) ReadOnly() bool              { return true }
func (f fakeTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	if f.panics {
		var m map[string]int
		m["boom"]++ // nil map write
	}
	return Result{Output: f.output}, f.err
}

func TestRunNeverPanics(t *testing.T) {
	r := newRegistry(fakeTool{name: "boom", panics: true}, fakeTool{name: "fails", err: fmt.Errorf("disk on fire")})
	env := newEnv(t)
	res := r.Run(context.Background(), env, Call{Name: "boom", Input: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Output, "failed unexpectedly") {
		t.Fatalf("panic not turned into an error result: %+v", res)
	}
	res = r.Run(context.Background(), env, Call{Name: "fails", Input: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Output, "disk on fire") {
		t.Fatalf("internal error not reported: %+v", res)
	}
}

func TestRunCapsAndSavesEveryResult(t *testing.T) {
	var full strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&full, "row %d ...............\n", i)
	}
	r := newRegistry(fakeTool{name: "big", output: full.String()})
	env := newEnv(t)
	res := r.Run(context.Background(), env, Call{ID: "c1", Name: "big", Input: json.RawMessage(`{}`)})
	if !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("not truncated/saved: %+v", res.Metadata)
	}
	if got := readFile(t, res.FullOutputPath); got != full.String() {
		t.Fatalf("saved file has %d bytes, want the whole %d", len(got), full.Len())
	}
	mustContain(t, res.Output, "row 1 ..", res.FullOutputPath, "[Output truncated")
	mustNotContain(t, res.Output, "row 4999 ")
	if lines := strings.Count(res.Output, "\n"); lines > 2000+5 {
		t.Fatalf("%d lines kept", lines)
	}
	if len(res.Output) > 50*1024+1024 {
		t.Fatalf("%d bytes kept", len(res.Output))
	}
	if res.RawOutput != "" {
		t.Fatal("RawOutput kept for an output above 50 KB")
	}

	// One huge line: the byte cap applies.
	r = newRegistry(fakeTool{name: "wide", output: strings.Repeat("é", 100000)})
	res = r.Run(context.Background(), env, Call{ID: "c2", Name: "wide", Input: json.RawMessage(`{}`)})
	if !res.Truncated || len(res.Output) > 50*1024+1024 || !utf8.ValidString(res.Output) {
		t.Fatalf("wide line: truncated=%v, %d bytes", res.Truncated, len(res.Output))
	}
}

func TestRunSanitisesOutputKeepsRaw(t *testing.T) {
	raw := "\x1b[31mred\x1b[0m \xff\xfe bytes\r\n"
	r := newRegistry(fakeTool{name: "colour", output: raw})
	res := r.Run(context.Background(), newEnv(t), Call{Name: "colour", Input: json.RawMessage(`{}`)})
	if want := "red \uFFFD bytes\n"; res.Output != want {
		t.Fatalf("Output = %q, want %q", res.Output, want)
	}
	if res.RawOutput != raw {
		t.Fatalf("RawOutput = %q, want the original", res.RawOutput)
	}
	res = newRegistry(fakeTool{name: "plain", output: "plain\n"}).Run(context.Background(), newEnv(t), Call{Name: "plain"})
	if res.RawOutput != "" || res.Output != "plain\n" || res.Title != "plain" {
		t.Fatalf("clean output: %+v", res)
	}
}

func TestLimitsDefaults(t *testing.T) {
	l := Limits{BashTimeout: 5e9, BashMaxTimeout: 1e9}.withDefaults()
	if l.BashMaxTimeout != l.BashTimeout {
		t.Errorf("max timeout below the default timeout not raised: %v", l.BashMaxTimeout)
	}
	if l.ReadMaxLines != 2000 || l.MaxResultBytes != 50*1024 || l.GrepMaxMatches != 100 || l.BashMaxOutputChars != 30000 {
		t.Errorf("defaults: %+v", l)
	}
}

// TestUnknownToolWithManyToolsStaysShort: a registry of 1,000 tools (MCP
// servers behind tool_search) answers a call of an unknown tool with a
// bounded list, not 1,000 names the model was never offered.
func TestUnknownToolWithManyToolsStaysShort(t *testing.T) {
	var many []Tool
	for i := 0; i < 1000; i++ {
		many = append(many, fakeTool{name: fmt.Sprintf("srv__tool_%d", i)})
	}
	reg := NewRegistry().With(many...)
	res := reg.Run(context.Background(), newEnv(t), Call{ID: "c", Name: "nope", Input: json.RawMessage(`{}`)})
	if !res.IsError || len(res.Output) > 1024 {
		t.Fatalf("unknown tool among 1,000: %d bytes: %.300s", len(res.Output), res.Output)
	}
	mustContain(t, res.Output, `unknown tool "nope"`, "bash, read", "and 979 more")
}

// TestBuiltinSchemasParse holds what building a registry no longer checks
// (schemas are parsed on a call's first validation): every built-in
// tool's schema is well formed and lists its properties in order.
func TestBuiltinSchemasParse(t *testing.T) {
	for _, tool := range NewRegistry().Tools() {
		var strict map[string]any
		if err := json.Unmarshal(tool.Parameters(), &strict); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
			continue
		}
		s, err := parseSchema(tool.Parameters())
		if err != nil || s.Type != "object" || len(s.order) == 0 || len(s.order) != len(s.Properties) {
			t.Errorf("%s: schema %+v, %v", tool.Name(), s, err)
		}
	}
}

// TestDerivedRegistriesShareSchemas checks that With reuses its parent's
// entries, so that a schema is parsed once however often the loop derives
// a registry, and that a derived registry validates like its parent.
func TestDerivedRegistriesShareSchemas(t *testing.T) {
	base := NewRegistry()
	derived := base.With(fakeTool{name: "extra"}, fakeTool{name: "extra"}, fakeTool{name: "read"})
	if got := derived.Names(); strings.Join(got, ",") != "bash,read,write,edit,grep,glob,ls,bash_output,bash_kill,extra" {
		t.Fatalf("names = %v", got)
	}
	for _, name := range base.Names() {
		if base.schemas[name] != derived.schemas[name] {
			t.Errorf("%s: the derived registry parses its schema again", name)
		}
	}
	if NewRegistry().schemas["bash"] != base.schemas["bash"] {
		t.Error("every registry of the built-in tools should share their schemas")
	}
	res := derived.Run(context.Background(), newEnv(t), Call{Name: "read", Input: json.RawMessage(`{"path": 3}`)})
	if !res.IsError || !strings.Contains(res.Output, `parameter "path" must be a string`) {
		t.Fatalf("derived registry did not validate: %+v", res)
	}
}

// BenchmarkRegistryStart is what a session's start does with registries:
// the built-in tools, the agent's own tool added (task), the session's
// (recall), and the tools of the first request encoded.
func BenchmarkRegistryStart(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := NewRegistry().With(fakeTool{name: "task"}).With(fakeTool{name: "recall"})
		if len(r.OpenAITools()) != 9 {
			b.Fatal("tools missing")
		}
	}
}
