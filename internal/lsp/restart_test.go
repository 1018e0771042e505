package lsp

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
)

// TestRestartRevivesAStoppedServer: a server that stopped for good (not
// installed) is tried again at the next edit after Restart, which says
// so once more; a running or unknown server is not restarted.
func TestRestartRevivesAStoppedServer(t *testing.T) {
	cfg := fakeConfig(t, "missing", 300)
	cfg.Servers["fake"] = config.LSPServer{Command: "no-such-language-server-xyz", Extensions: []string{".fk"}}
	s := New(cfg)
	env := session(t, s)
	if n, err := s.Restart("fake"); n != 0 || err != nil {
		t.Errorf("Restart before any start = %d, %v", n, err)
	}
	run(t, env, "write", map[string]any{"path": "a.fk", "content": "x\n"})
	if st := s.Status(); st[0].State != "failed" {
		t.Fatalf("state = %+v, want failed", st)
	}
	if n, err := s.Restart("fake"); n != 1 || err != nil {
		t.Fatalf("Restart = %d, %v; want 1", n, err)
	}
	if st := s.Status(); st[0].State == "failed" {
		t.Errorf("state after Restart = %+v", st)
	}
	res := run(t, env, "write", map[string]any{"path": "a.fk", "content": "y\n"})
	if !strings.Contains(res.Output, "diagnostics unavailable: ") {
		t.Errorf("the edit after Restart did not try the server again:\n%s", res.Output)
	}
	if _, err := s.Restart("nope"); err == nil {
		t.Error("Restart of an unknown server succeeded")
	}
}
