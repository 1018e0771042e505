package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/secrets"
)

// Registry holds the tools offered to the model, in a fixed order, with
// their schemas, parsed on a call's first validation. It is safe for
// concurrent use.
type Registry struct {
	tools   []Tool
	byName  map[string]Tool
	schemas map[string]*lazySchema

	defsOnce sync.Once
	defs     []openai.Tool // OpenAITools, built once
}

// lazySchema is a tool's schema, parsed the first time a call needs it: a
// registry is built at every start and often again (a session's own tools,
// MCP servers joining), and most of its tools are never called. Registries
// derived with With share their entries, so a schema is parsed once.
type lazySchema struct {
	tool Tool
	once sync.Once
	s    *schema
}

// get returns the parsed schema. One the validator cannot read at all is
// left unchecked (the tool still validates its own input).
func (l *lazySchema) get() *schema {
	l.once.Do(func() {
		s, err := parseSchema(l.tool.Parameters())
		if err != nil {
			s = &schema{}
		}
		l.s = s
	})
	return l.s
}

// builtinTools are the built-in tools' entries, shared by every registry.
var builtinTools = sync.OnceValue(func() *Registry {
	return newRegistry(bashTool{}, readTool{}, writeTool{}, editTool{}, grepTool{}, globTool{}, lsTool{}, bashOutputTool{}, bashKillTool{})
})

// NewRegistry returns the registry of the built-in tools, in this order:
// bash, read, write, edit, grep, glob, ls, bash_output, bash_kill.
func NewRegistry() *Registry {
	return builtinTools().With()
}

func newRegistry(tools ...Tool) *Registry {
	return new(Registry).With(tools...)
}

// With returns a registry of r's tools followed by extra, in that order;
// an extra tool whose name r has already is left out. r is not changed.
// The loop adds the tools that need a session this way (recall).
func (r *Registry) With(extra ...Tool) *Registry {
	n := len(r.tools) + len(extra)
	out := &Registry{tools: make([]Tool, 0, n), byName: make(map[string]Tool, n), schemas: make(map[string]*lazySchema, n)}
	for _, t := range r.tools {
		out.add(t, r.schemas[t.Name()])
	}
	for _, t := range extra {
		if _, dup := out.byName[t.Name()]; !dup {
			out.add(t, &lazySchema{tool: t})
		}
	}
	return out
}

func (r *Registry) add(t Tool, s *lazySchema) {
	r.tools = append(r.tools, t)
	r.byName[t.Name()] = t
	r.schemas[t.Name()] = s
}

// Tools returns the tools in their fixed order.
func (r *Registry) Tools() []Tool { return append([]Tool(nil), r.tools...) }

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Names returns the tool names in their fixed order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name()
	}
	return names
}

// OpenAITools returns the tool definitions for a chat completion request, in
// the fixed order. A registry returns the same slice every time (the
// provider reuses the request's encoding while it is the same): callers
// must not change it.
func (r *Registry) OpenAITools() []openai.Tool {
	r.defsOnce.Do(func() { r.defs = r.openAITools() })
	return r.defs
}

func (r *Registry) openAITools() []openai.Tool {
	defs := make([]openai.Tool, len(r.tools))
	for i, t := range r.tools {
		defs[i] = openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name(),
				Description: t.Description(),
				Parameters:  t.Parameters(),
			},
		}
	}
	return defs
}

// Title returns the short title of a call for the TUI ("bash: go test
// ./...", "read internal/x.go"), as its result will carry. It needs no
// valid input.
func (r *Registry) Title(env *Env, call Call) string {
	if t, ok := r.byName[call.Name].(titler); ok {
		if title := t.title(env, call.Input); title != "" {
			return title
		}
	}
	return call.Name
}

// titler is implemented by tools that title a call from its input.
type titler interface {
	title(env *Env, input json.RawMessage) string
}

// Run validates and runs one call, and returns its result ready for the
// model: sanitised (no terminal escapes, valid UTF-8) and capped by the
// shared truncation, the full output saved under env.OutputDir. An unknown
// tool, input that is not JSON or does not fit the schema, a tool's
// internal error and a panic all become error results the model can read;
// Run itself never fails. Permissions are not checked here: call
// Permissions.Check first, or use RunChecked.
//
// Run returns within cancelGrace of ctx being done, whatever the tool is
// doing: a tool that has not returned by then (stuck in a system call, on a
// file that never answers) is abandoned. Its goroutine runs on until the
// call returns, and its result is dropped; the call's result says it was
// cancelled (Metadata["cancelled"] and ["abandoned"]).
func (r *Registry) Run(ctx context.Context, env *Env, call Call) Result {
	start := time.Now()
	res := r.runCancellable(ctx, env, call)
	res = r.finish(env, call, res)
	if _, ok := res.Metadata["duration_ms"]; !ok {
		res.Metadata["duration_ms"] = time.Since(start).Milliseconds()
	}
	return res
}

// RunChecked asks whether the call may run (Registry.Check), then runs it. A denied
// call is not run: its result is an error carrying the denial for the model,
// with Metadata["permission"] = "denied". The error is non-nil only when the
// check itself failed (the context was cancelled while asking).
func (r *Registry) RunChecked(ctx context.Context, env *Env, perms *Permissions, call Call) (Result, error) {
	ok, denial, err := r.Check(ctx, env, perms, call)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{
			Output:   denial,
			Title:    r.Title(env, call),
			IsError:  true,
			Metadata: map[string]any{"permission": "denied"},
		}, nil
	}
	return r.Run(ctx, env, call), nil
}

// cancelGrace is how long Run waits, once the context is done, for the
// tool to return its own result (bash stops its process group and reports
// the output so far) before abandoning it. Within the 500 ms a cancel must
// take.
const cancelGrace = 300 * time.Millisecond

// runCancellable runs the call in its own goroutine and gives up on it
// cancelGrace after ctx is done.
func (r *Registry) runCancellable(ctx context.Context, env *Env, call Call) Result {
	// The caller's callbacks are not called once Run has returned: an
	// abandoned tool may still report progress, and the caller has moved on.
	gate := &callbackGate{}
	defer gate.close()
	call.Progress = gateProgress(gate, call.Progress)
	call.Started = gateStarted(gate, call.Started)
	done := make(chan Result, 1) // buffered: an abandoned call's send never blocks
	go func() { done <- r.run(ctx, env, call) }()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
	}
	grace := time.NewTimer(cancelGrace)
	defer grace.Stop()
	select {
	case res := <-done:
		return res
	case <-grace.C:
		res := errorResult(r.Title(env, call), "%s was cancelled and did not stop within %v; it was left behind and its result will not be known", call.Name, cancelGrace)
		res.Metadata = map[string]any{"cancelled": true, "abandoned": true}
		return res
	}
}

// callbackGate lets a call's callbacks through until closed; a callback in
// progress finishes before close returns.
type callbackGate struct {
	mu     sync.Mutex
	closed bool
}

func (g *callbackGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// do runs fn unless the gate is closed.
func (g *callbackGate) do(fn func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		fn()
	}
}

func gateProgress(g *callbackGate, fn func(string)) func(string) {
	if fn == nil {
		return nil
	}
	return func(lines string) { g.do(func() { fn(lines) }) }
}

func gateStarted(g *callbackGate, fn func(ProcessGroup)) func(ProcessGroup) {
	if fn == nil {
		return nil
	}
	return func(pg ProcessGroup) { g.do(func() { fn(pg) }) }
}

func (r *Registry) run(ctx context.Context, env *Env, call Call) (res Result) {
	t, ok := r.byName[call.Name]
	if !ok {
		return errorResult(call.Name, "unknown tool %q; the available tools are: %s", call.Name, nameList(r.Names()))
	}
	s := r.schemas[call.Name].get()
	if msg := s.validate(call.Input); msg != "" {
		return errorResult(call.Name, "invalid arguments for %s: %s. Its parameters are: %s.", call.Name, msg, s.usage())
	}
	defer func() {
		if p := recover(); p != nil {
			res = errorResult(call.Name, "the %s tool failed unexpectedly (internal error: %v); nothing more is known, try another approach", call.Name, p)
			res.Metadata = map[string]any{"panic": fmt.Sprint(p), "stack": string(debug.Stack())}
		}
	}()
	res, err := watchEdit(ctx, env, t, call) // editwatch.go: t.Run, watched when it changes a file
	if err != nil {
		title := res.Title
		if title == "" {
			title = r.Title(env, call)
		}
		return errorResult(title, "%s failed: %v", call.Name, err)
	}
	return res
}

// maxNamesListed bounds the names an unknown tool's error lists: MCP
// servers may bring a thousand tools the model was never offered.
const maxNamesListed = 30

// nameList joins names, the first maxNamesListed of them.
func nameList(names []string) string {
	if len(names) <= maxNamesListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamesListed], ", "), len(names)-maxNamesListed)
}

// Room above the shared cap for a tool's notes about its own truncation.
const (
	noteSlackLines = 10
	noteSlackBytes = 1024
)

// finish sanitises and caps a result, saving the full output when the cap
// cuts it, and fills RawOutput, Title and Metadata.
func (r *Registry) finish(env *Env, call Call, res Result) Result {
	if res.Title == "" {
		res.Title = r.Title(env, call)
	}
	if res.Metadata == nil {
		res.Metadata = map[string]any{}
	}
	redactResult(&res, env.Secrets)
	raw := res.RawOutput
	if raw == "" {
		raw = res.Output
	}
	out := Sanitize(res.Output)
	lim := env.limits()
	// A tool's own closing note (read's "use offset=N", grep's header) may
	// go a few lines past the cap; anything more is cut to the cap.
	if _, over := truncate.Apply(out, lim.MaxResultLines+noteSlackLines, lim.MaxResultBytes+noteSlackBytes); over {
		kept, _ := truncate.Apply(out, lim.MaxResultLines, lim.MaxResultBytes)
		path := res.FullOutputPath
		if path == "" {
			if p, err := env.saver().SaveString(call.ID, raw); err == nil {
				path = p
			} else {
				res.Metadata["save_error"] = err.Error()
			}
		}
		out = kept + truncate.Notice(truncate.CountLines(kept), truncate.CountLines(out), len(out), path)
		res.Truncated = true
		res.FullOutputPath = path
	}
	res.Output = out
	res.RawOutput = ""
	if raw != out && len(raw) <= MaxRawOutputBytes {
		res.RawOutput = raw
	}
	return res
}

// redactResult replaces the secret values in everything of res that is
// shown, stored or saved: the last line of defence should a tool read a
// secret (a file holding the key, a diff of one).
func redactResult(res *Result, values []string) {
	res.Output = secrets.Redact(res.Output, values...)
	res.RawOutput = secrets.Redact(res.RawOutput, values...)
	res.Title = secrets.Redact(res.Title, values...)
	for k, v := range res.Metadata {
		if s, ok := v.(string); ok {
			res.Metadata[k] = secrets.Redact(s, values...)
		}
	}
}
