package tui

import (
	"os"
	"path/filepath"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestMentionChipsCount: a chip counts what was attached — a one-line
// file is "1 line", a folder of one file "1 entry", a three-line file
// "3 lines" — not the lines of the tool's output (issue 32 item 6).
func TestMentionChipsCount(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("ok")})
	os.WriteFile(filepath.Join(h.dir, "one.txt"), []byte("just one line\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "three.txt"), []byte("a\nb\nc"), 0o644)
	os.MkdirAll(filepath.Join(h.dir, "pkg"), 0o755)
	os.WriteFile(filepath.Join(h.dir, "pkg", "main.go"), []byte("package main\n"), 0o644)
	h.typeText("see @one.txt @three.txt @pkg/ ")
	h.key("esc")
	h.key("enter")
	h.waitFor("the reply", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	h.waitScreen("@one.txt · 1 line")
	h.waitScreen("@three.txt · 3 lines")
	h.waitScreen("@pkg/ · listing, 1 entry")
}
