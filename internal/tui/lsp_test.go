package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
)

func TestLSPNoticeShowsServers(t *testing.T) {
	if n := lspNotice(&config.Config{}); !strings.Contains(n.text, "no language server is configured") {
		t.Fatalf("none: %q", n.text)
	}
	c := &config.Config{LSP: config.LSP{Servers: map[string]config.LSPServer{"go": {Command: "no-such-gopls-\x1b[31m"}}}}
	n := lspNotice(c)
	if !strings.Contains(n.text, "go (no-such-gopls-[31m, .go): not started") || !strings.Contains(n.text, "is not installed") || strings.Contains(n.text, "\x1b") {
		t.Fatalf("configured: %q", n.text)
	}
}
