package config

import (
	"fmt"
	"strings"
)

// MCPServer is one entry of the config's mcp map: a server started as a
// child process speaking MCP over stdio ({command, args, env}) or one
// reached over streamable HTTP ({url, headers}). Header and env values may
// name environment variables as ${VAR}; they are expanded when the server
// is connected, never stored expanded. In an entry a project declares, a
// ${VAR} expands only when the user's own config grants that variable to
// that server by name (mcp_allow_env: {"SERVER": ["VAR"]}, kept in
// AllowEnv); any other expands to nothing, and internal/mcp refuses to
// start a project entry whose env would change what a program loads.
type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// TimeoutS bounds one tool call (default 60); StartupTimeoutS bounds
	// starting and listing the tools (default 30).
	TimeoutS        float64 `json:"timeout_s,omitempty"`
	StartupTimeoutS float64 `json:"startup_timeout_s,omitempty"`
	// ReadOnly marks every tool of the server as one that changes nothing,
	// and ReadOnlyTools marks the tools named (without the SERVER__
	// prefix): plan mode offers those (internal/plan). Honoured in the
	// user file only.
	ReadOnly      bool     `json:"read_only,omitempty"`
	ReadOnlyTools []string `json:"read_only_tools,omitempty"`
	// Disabled keeps a configured server from starting.
	Disabled bool `json:"disabled,omitempty"`
	// Sandbox, when set ("read-only" or "workspace-write"), runs a
	// command server in the OS sandbox (internal/sandbox) with that mode,
	// or not at all where none runs; the network follows the config's
	// sandbox.network. Unset: unconfined, as before.
	Sandbox string `json:"sandbox,omitempty"`
	// Project is the project file that declared the entry, empty for the
	// user file. A project's server starts only once the user approved
	// this very entry (internal/approval, keyed by a digest of its JSON,
	// which leaves Project out).
	Project string `json:"-"`
	// AllowEnv are the variables a project's entry may expand: the user
	// file's mcp_allow_env for this server's name. A project file cannot
	// set it, and it is not part of the approved digest (the user's grant
	// is the user's, whatever the project declares).
	AllowEnv []string `json:"-"`
}

// Kinds of MCP servers.
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
)

// Kind is MCPStdio or MCPHTTP.
func (s MCPServer) Kind() string {
	if s.URL != "" {
		return MCPHTTP
	}
	return MCPStdio
}

// check says what is wrong with an entry, or "".
func (s MCPServer) check() string {
	switch {
	case s.Command == "" && s.URL == "":
		return "want a command (stdio) or a url (streamable HTTP)"
	case s.Command != "" && s.URL != "":
		return "set a command or a url, not both"
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return fmt.Sprintf("url %q: want an http:// or https:// URL", s.URL)
	case s.TimeoutS < 0 || s.StartupTimeoutS < 0:
		return "timeouts must not be negative"
	case s.Sandbox != "" && s.Sandbox != "off" && s.Sandbox != "read-only" && s.Sandbox != "workspace-write":
		return fmt.Sprintf("sandbox %q: want off, read-only or workspace-write", s.Sandbox)
	case s.Sandbox != "" && s.URL != "":
		return "sandbox applies to a command (stdio) server, not a url"
	}
	return ""
}

// addMCP adds a file's mcp entries: project is the project file's path,
// empty for the user file. A project cannot replace a server of the
// user's; an entry that cannot work is left out with a warning.
func (c *Config) addMCP(entries map[string]MCPServer, project string) {
	file := project
	if file == "" {
		file = c.UserFile
	}
	for _, name := range sortedKeys(entries) {
		e := entries[name]
		if msg := e.check(); msg != "" || name == "" {
			if name == "" {
				msg = "a server needs a name"
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: mcp.%s is ignored: %s", file, name, msg))
			continue
		}
		if _, mine := c.MCP[name]; mine && project != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: mcp.%s is ignored: your user config declares a server of that name", file, name))
			continue
		}
		e.Project = project
		if project != "" {
			e.AllowEnv = c.MCPAllowEnv[name]
		}
		if c.MCP == nil {
			c.MCP = map[string]MCPServer{}
		}
		c.MCP[name] = e
	}
}
