package lsp

// tool.go: the diagnostics tool (the current diagnostics of a file, or of
// every file the servers have open) and the servers' status for /lsp and
// agent lsp list.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/tools"
)

// maxToolDiagnostics bounds what the diagnostics tool lists.
const maxToolDiagnostics = 200

// Tool is the diagnostics tool over s; nil when s is nil.
func (s *Servers) Tool() tools.Tool {
	if s == nil {
		return nil
	}
	return diagnosticsTool{s}
}

// ToolSchema is the diagnostics tool as offered when cfg has servers,
// for the commands that count a session's tools without running it; nil
// when it has none.
func ToolSchema(cfg config.LSP) tools.Tool {
	if !cfg.Active() {
		return nil
	}
	return diagnosticsTool{}
}

type diagnosticsTool struct{ s *Servers }

func (diagnosticsTool) Name() string   { return "diagnostics" }
func (diagnosticsTool) ReadOnly() bool { return true }

func (diagnosticsTool) Description() string {
	return `The language server's current diagnostics (errors, warnings) of a file, or of every file checked this session when path is left out.

- write and edit already append the diagnostics they introduce; use this to see a file's full list.`
}

func (diagnosticsTool) Parameters() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file to check (relative to the session's directory). Leave out for every file checked so far."}}}`)
}

func (t diagnosticsTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, err
	}
	if t.s == nil {
		return tools.Result{Output: "no language server is configured (config lsp)", Title: "diagnostics", IsError: true}, nil
	}
	if strings.TrimSpace(in.Path) == "" {
		return tools.Result{Output: t.s.allOpen(env.Dir), Title: "diagnostics"}, nil
	}
	path := in.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	path = filepath.Clean(path)
	title := "diagnostics " + shown(env.Dir, path)
	sv := t.s.serverFor(env.Dir, path, env.Secrets)
	if sv == nil {
		return tools.Result{Output: fmt.Sprintf("no language server serves %s (config lsp; files under the session's directory only)", shown(env.Dir, path)), Title: title, IsError: true}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.s.wait)
	defer cancel()
	text, ok, err := readText(ctx, path, env.Dir)
	if err == nil && !ok {
		return tools.Result{Output: fmt.Sprintf("%s does not exist", shown(env.Dir, path)), Title: title, IsError: true}, nil
	}
	var c *client
	if err == nil {
		c, err = t.s.client(ctx, sv)
	}
	var diags []Diagnostic
	if err == nil {
		diags, err = t.s.diagnose(ctx, sv, c, path, text)
	}
	if err != nil {
		return tools.Result{Output: fmt.Sprintf("diagnostics unavailable: %v", err), Title: title, IsError: true}, nil
	}
	if len(diags) == 0 {
		return tools.Result{Output: fmt.Sprintf("%s: no diagnostics (%s)", shown(env.Dir, path), sv.name), Title: title}, nil
	}
	sortDiags(diags)
	return tools.Result{Output: Format(shown(env.Dir, path), diags, maxToolDiagnostics, 16*t.s.cfg.MaxBytes), Title: title}, nil
}

// allOpen lists the last diagnostics of every file the servers of dir
// have open.
func (s *Servers) allOpen(dir string) string {
	byPath := map[string][]Diagnostic{}
	s.mu.Lock()
	var clients []*client
	for _, sv := range s.slots {
		if sv.root != dir {
			continue
		}
		sv.mu.Lock()
		if sv.c != nil {
			clients = append(clients, sv.c)
		}
		sv.mu.Unlock()
	}
	s.mu.Unlock()
	for _, c := range clients {
		for p, d := range c.all() {
			byPath[p] = append(byPath[p], d...)
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	n := 0
	for _, p := range paths {
		d := byPath[p]
		if len(d) == 0 || n >= maxToolDiagnostics {
			continue
		}
		sortDiags(d)
		b.WriteString(Format(shown(dir, p), d, maxToolDiagnostics-n, 16*s.cfg.MaxBytes))
		b.WriteByte('\n')
		n += len(d)
	}
	if b.Len() == 0 {
		if len(paths) == 0 {
			return "no file has been checked yet this session: give a path"
		}
		return fmt.Sprintf("no diagnostics in the %d files checked this session", len(paths))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sortDiags(d []Diagnostic) {
	sort.SliceStable(d, func(i, j int) bool {
		if d[i].Range.Start.Line != d[j].Range.Start.Line {
			return d[i].Range.Start.Line < d[j].Range.Start.Line
		}
		return d[i].Range.Start.Character < d[j].Range.Start.Character
	})
}

// Status is one server as /lsp and agent lsp list show it.
type Status struct {
	Name       string   `json:"name"`
	Command    string   `json:"command"`
	Args       []string `json:"args,omitempty"`
	Extensions []string `json:"extensions"`
	// Path is where the command was found; "" when it was not.
	Path string `json:"path"`
	// Root is the directory it serves, once started.
	Root string `json:"root,omitempty"`
	// State is "not started", "starting", "running", "restarting" or
	// "failed".
	State     string `json:"state"`
	Restarts  int    `json:"restarts"`
	Files     int    `json:"files"`
	LastError string `json:"last_error,omitempty"`
}

// Configured is the status of cfg's servers before any starts: each
// command looked up on PATH.
func Configured(cfg config.LSP) []Status {
	var out []Status
	for _, name := range cfg.Names() {
		sc := cfg.Servers[name]
		st := Status{Name: name, Command: sc.Command, Args: sc.Args, Extensions: cfg.ExtensionsOf(name), State: "not started"}
		if cfg.Disabled {
			st.State = "off"
		}
		if p, err := exec.LookPath(resolveCommand(sc.Command)); err == nil {
			st.Path = p
		} else {
			st.LastError = fmt.Sprintf("%q is not installed", sc.Command)
		}
		out = append(out, st)
	}
	return out
}

// Status is the servers' status now: the configured ones, each with the
// state of its running instance when it has one.
func (s *Servers) Status() []Status {
	if s == nil {
		return nil
	}
	out := Configured(s.cfg)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range out {
		for _, sv := range s.slots {
			if sv.name != out[i].Name {
				continue
			}
			sv.mu.Lock()
			st := &out[i]
			st.Root, st.Restarts = sv.root, sv.restarts
			switch {
			case sv.failed != nil:
				st.State = "failed"
			case sv.starting != nil:
				st.State = "starting"
			case sv.c != nil && sv.c.Err() == nil:
				st.State = "running"
				st.Files = len(sv.c.all())
			case sv.c != nil:
				st.State = "restarting"
			}
			if sv.lastErr != nil {
				st.LastError = sv.lastErr.Error()
			}
			sv.mu.Unlock()
		}
	}
	return out
}
