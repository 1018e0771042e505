package config

// The language servers whose diagnostics follow each edit (config lsp,
// user file only: a server is a program the agent starts, which a cloned
// repository must not be able to choose). The group holds one entry per
// server, by name, and the settings of them all:
//
//	"lsp": {"go": {"command": "gopls"},
//	        "python": {"command": "pyright-langserver", "args": ["--stdio"], "extensions": [".py"]},
//	        "wait_ms": 2000, "warnings": false, "max_diagnostics": 10, "max_bytes": 4000}
//
// "enabled": false switches them all off. See internal/lsp.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// LSP defaults.
const (
	DefaultLSPWaitMS         = 2000
	DefaultLSPMaxDiagnostics = 10
	DefaultLSPMaxBytes       = 4000
)

// LSP configures the language servers (internal/lsp). The zero value has
// no server: nothing starts.
type LSP struct {
	Servers map[string]LSPServer
	// Disabled switches every server off (lsp.enabled false).
	Disabled bool
	// WaitMS bounds how long an edit waits for the server's diagnostics
	// (lsp.wait_ms; default DefaultLSPWaitMS).
	WaitMS int
	// Warnings reports the warnings an edit introduced, not only the
	// errors (lsp.warnings; default false).
	Warnings bool
	// MaxDiagnostics and MaxBytes cap what one edit's result gets
	// (defaults DefaultLSPMaxDiagnostics, DefaultLSPMaxBytes).
	MaxDiagnostics int
	MaxBytes       int
}

// LSPServer is one language server: the command that speaks the protocol
// on its stdin and stdout, and the file extensions it serves (default:
// the well-known ones of its name, DefaultLSPExtensions).
type LSPServer struct {
	Command    string   `json:"command"`
	Args       []string `json:"args"`
	Extensions []string `json:"extensions"`
}

// DefaultLSPExtensions are the extensions of the well-known server names.
var DefaultLSPExtensions = map[string][]string{
	"go":         {".go"},
	"python":     {".py", ".pyi"},
	"typescript": {".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"},
	"javascript": {".js", ".jsx", ".mjs", ".cjs"},
	"rust":       {".rs"},
	"c":          {".c", ".h"},
	"cpp":        {".cc", ".cpp", ".cxx", ".hpp", ".hh", ".h"},
	"clangd":     {".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"},
	"java":       {".java"},
	"ruby":       {".rb"},
	"lua":        {".lua"},
	"zig":        {".zig"},
	"csharp":     {".cs"},
	"php":        {".php"},
}

// Active reports whether any server may start.
func (l LSP) Active() bool { return !l.Disabled && len(l.Servers) > 0 }

// Names are the servers' names, sorted.
func (l LSP) Names() []string {
	names := make([]string, 0, len(l.Servers))
	for n := range l.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ExtensionsOf are the extensions server name serves: its own, or its
// name's defaults.
func (l LSP) ExtensionsOf(name string) []string {
	if e := l.Servers[name].Extensions; len(e) > 0 {
		return e
	}
	return DefaultLSPExtensions[name]
}

// applyLSP merges a user file's lsp group into c; an entry that is not a
// server is an error naming it.
func (c *Config) applyLSP(raw map[string]json.RawMessage) error {
	for key, v := range raw {
		var err error
		switch key {
		case "enabled":
			var on bool
			err = json.Unmarshal(v, &on)
			c.LSP.Disabled = !on
		case "wait_ms":
			err = json.Unmarshal(v, &c.LSP.WaitMS)
		case "warnings":
			err = json.Unmarshal(v, &c.LSP.Warnings)
		case "max_diagnostics":
			err = json.Unmarshal(v, &c.LSP.MaxDiagnostics)
		case "max_bytes":
			err = json.Unmarshal(v, &c.LSP.MaxBytes)
		default:
			var s LSPServer
			dec := json.NewDecoder(strings.NewReader(string(v)))
			dec.DisallowUnknownFields()
			if err = dec.Decode(&s); err == nil && strings.TrimSpace(s.Command) == "" {
				err = fmt.Errorf("no command")
			}
			if err == nil {
				for i, e := range s.Extensions {
					if !strings.HasPrefix(e, ".") {
						s.Extensions[i] = "." + e
					}
				}
				if len(s.Extensions) == 0 && len(DefaultLSPExtensions[key]) == 0 {
					err = fmt.Errorf("no extensions, and %q is not a language whose extensions are known", key)
				}
			}
			if err == nil {
				if c.LSP.Servers == nil {
					c.LSP.Servers = map[string]LSPServer{}
				}
				c.LSP.Servers[key] = s
			} else {
				err = fmt.Errorf("want {\"command\": \"…\", \"args\": […], \"extensions\": [\".ext\"]}: %w", err)
			}
		}
		if err != nil {
			return fmt.Errorf("config: lsp.%s: %w", key, err)
		}
	}
	return nil
}

// WithDefaults is l with its unset limits filled (Load fills them; a
// config.LSP made by hand, as tests do, may lack them).
func (l LSP) WithDefaults() LSP {
	l.lspDefaults()
	return l
}

// lspDefaults fills the unset limits.
func (l *LSP) lspDefaults() {
	if l.WaitMS <= 0 {
		l.WaitMS = DefaultLSPWaitMS
	}
	if l.MaxDiagnostics <= 0 {
		l.MaxDiagnostics = DefaultLSPMaxDiagnostics
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLSPMaxBytes
	}
}
