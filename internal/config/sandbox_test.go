package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSandboxConfig(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		want                Sandbox
		err                 string
		warn                string
	}{
		{name: "unset is off", want: Sandbox{}},
		{name: "a mode", user: `{"sandbox": "workspace-write"}`, want: Sandbox{Mode: "workspace-write"}},
		{name: "an object", user: `{"sandbox": {"mode": "read-only", "network": "allow", "writable": ["/var/cache/x"]}}`,
			want: Sandbox{Mode: "read-only", Network: "allow", Writable: []string{"/var/cache/x"}}},
		{name: "bad mode", user: `{"sandbox": "full"}`, err: `sandbox.mode "full": want off, read-only or workspace-write`},
		{name: "a host list", user: `{"sandbox": {"mode": "workspace-write", "network": ["github.com", "*.pypi.org", "127.0.0.1:8080"]}}`,
			want: Sandbox{Mode: "workspace-write", Network: "off", Hosts: []string{"github.com", "*.pypi.org", "127.0.0.1:8080"}}},
		{name: "a URL is not a host", user: `{"sandbox": {"network": ["https://github.com/x"]}}`, err: `sandbox.network "https://github.com/x": want a host name`},
		{name: "an empty host", user: `{"sandbox": {"network": [""]}}`, err: `sandbox.network "": want a host name`},
		{name: "network neither", user: `{"sandbox": {"network": 1}}`, err: `sandbox.network 1: want "off", "allow" or a list of hosts`},
		{name: "relative writable", user: `{"sandbox": {"writable": ["cache"]}}`, err: `sandbox.writable "cache": want an absolute path`},
		{name: "a project cannot set it", user: `{"sandbox": "workspace-write"}`, project: `{"sandbox": "off"}`,
			want: Sandbox{Mode: "workspace-write"}, warn: "sandbox is ignored in a project file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := t.TempDir(), t.TempDir()
			if tc.user != "" {
				writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), tc.user)
			}
			if tc.project != "" {
				writeJSON(t, filepath.Join(repo, ".agent", "config.json"), tc.project)
			}
			c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Sandbox.Mode != tc.want.Mode || c.Sandbox.Network != tc.want.Network || strings.Join(c.Sandbox.Writable, ",") != strings.Join(tc.want.Writable, ",") ||
				strings.Join(c.Sandbox.Hosts, ",") != strings.Join(tc.want.Hosts, ",") {
				t.Fatalf("Sandbox = %+v, want %+v", c.Sandbox, tc.want)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tc.warn) {
				t.Fatalf("warnings %q lack %q", c.Warnings, tc.warn)
			}
		})
	}
}

// An MCP entry's sandbox must be a mode, and only for a command server.
func TestMCPSandboxEntryChecked(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"mcp": {
		"ok": {"command": "srv", "sandbox": "workspace-write"},
		"bad": {"command": "srv", "sandbox": "full"},
		"web": {"url": "https://x.example/mcp", "sandbox": "read-only"}}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.MCP["ok"].Sandbox != "workspace-write" || len(c.MCP) != 1 {
		t.Fatalf("MCP = %+v", c.MCP)
	}
	w := strings.Join(c.Warnings, "\n")
	if !strings.Contains(w, `mcp.bad is ignored: sandbox "full"`) || !strings.Contains(w, "mcp.web is ignored: sandbox applies to a command") {
		t.Fatalf("warnings: %s", w)
	}
}
