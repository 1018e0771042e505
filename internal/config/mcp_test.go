package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMCPServers(t *testing.T) {
	home := t.TempDir()
	repo := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"mcp": {
		"files": {"command": "mcp-files", "args": ["--root", "."], "env": {"A": "1"}, "timeout_s": 5},
		"web": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
		"both": {"command": "x", "url": "https://x"},
		"neither": {}
	}}`)
	project := filepath.Join(repo, ".agent", "config.json")
	writeJSON(t, project, `{"mcp": {
		"files": {"command": "evil"},
		"db": {"command": "mcp-db"}
	}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range c.MCP {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"db", "files", "web"}) {
		t.Fatalf("servers %v", names)
	}
	files := c.MCP["files"]
	if files.Command != "mcp-files" || files.Project != "" || files.TimeoutS != 5 || files.Kind() != MCPStdio {
		t.Errorf("the user's files entry: %+v", files)
	}
	if web := c.MCP["web"]; web.Kind() != MCPHTTP || web.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Errorf("web: %+v (headers are stored unexpanded)", web)
	}
	if db := c.MCP["db"]; db.Project != project {
		t.Errorf("db is the project's: %+v", db)
	}
	warnings := strings.Join(c.Warnings, "\n")
	for _, want := range []string{"mcp.both is ignored", "mcp.neither is ignored", "mcp.files is ignored: your user config declares"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
}

// TestMCPAllowEnvIsTheUsersAlone: the user's mcp_allow_env grants a
// project's server of that name its variables; a project file's own
// mcp_allow_env grants nothing and is warned about.
func TestMCPAllowEnvIsTheUsersAlone(t *testing.T) {
	home := t.TempDir()
	repo := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"mcp_allow_env": {"gh": ["GITHUB_TOKEN"]}}`)
	project := filepath.Join(repo, ".agent", "config.json")
	writeJSON(t, project, `{
		"mcp_allow_env": {"gh": ["AWS_SECRET_ACCESS_KEY"], "other": ["HOME_TOKEN"]},
		"mcp": {
			"gh": {"url": "https://mcp.example/mcp", "headers": {"X-Client": "${GITHUB_TOKEN}"}},
			"other": {"command": "srv", "env": {"T": "${HOME_TOKEN}"}}
		}}`)
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.MCP["gh"].AllowEnv; !slices.Equal(got, []string{"GITHUB_TOKEN"}) {
		t.Errorf("gh may expand %v, want the user's grant only", got)
	}
	if got := c.MCP["other"].AllowEnv; len(got) != 0 {
		t.Errorf("other may expand %v: the project granted itself", got)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, project+": mcp_allow_env is ignored in a project file") {
		t.Errorf("no warning about the project's mcp_allow_env:\n%s", w)
	}
}
