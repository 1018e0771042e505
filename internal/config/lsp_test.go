package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLSPFromUserFileOnly(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	os.WriteFile(user, []byte(`{"lsp": {"go": {"command": "gopls"}, "py": {"command": "pyls", "extensions": ["py"]}, "wait_ms": 500, "warnings": true}}`), 0o600)
	proj := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(proj, ".agent"), 0o700)
	os.WriteFile(filepath.Join(proj, ".agent", "config.json"), []byte(`{"lsp": {"evil": {"command": "./x", "extensions": [".go"]}}}`), 0o600)
	c, err := Load(Flags{ConfigFile: user}, proj, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.LSP.Names(), ","); got != "go,py" || c.LSP.WaitMS != 500 || !c.LSP.Warnings || c.LSP.MaxDiagnostics != DefaultLSPMaxDiagnostics {
		t.Fatalf("lsp = %+v", c.LSP)
	}
	if e := c.LSP.ExtensionsOf("py"); len(e) != 1 || e[0] != ".py" {
		t.Fatalf("py extensions = %v", e)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "lsp is ignored in a project file") {
		t.Fatalf("no warning about the project's lsp: %v", c.Warnings)
	}
	os.WriteFile(user, []byte(`{"lsp": {"mystery": {"command": "x"}}}`), 0o600)
	if _, err := Load(Flags{ConfigFile: user}, dir, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "lsp.mystery") {
		t.Fatalf("a server with no known extensions: %v", err)
	}
}
