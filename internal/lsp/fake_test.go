package lsp

// fake_test.go: the test binary doubles as a fake language server when
// LSP_FAKE names a behaviour: "good" (each line containing BAD is an
// error "bad thing"), "crash" (exits at once), "hang" (reads, never
// answers), "flood" (answers, then floods log messages and never
// publishes), "mute" (answers, never publishes), "spawn" (starts a helper
// process, then hangs).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/childproc"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv("LSP_FAKE"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction(childproc.SpawnerFunc))
}

func fakeServer(mode string) {
	if mode == "crash" {
		fmt.Fprintln(os.Stderr, "fake: boom")
		os.Exit(3)
	}
	if mode == "spawn" {
		// Starts a helper of its own (as node servers do), then hangs.
		helper := exec.Command("sleep", "300")
		if helper.Start() == nil {
			_ = os.WriteFile(os.Getenv("LSP_FAKE_PIDFILE"), []byte(strconv.Itoa(helper.Process.Pid)), 0o600)
		}
		mode = "hang"
	}
	r := bufio.NewReader(os.Stdin)
	out := make(chan []byte, 1024)
	go func() {
		for b := range out {
			_ = writeMessage(os.Stdout, b)
		}
	}()
	send := func(v any) { b, _ := json.Marshal(v); out <- b }
	for {
		body, err := readMessage(r, maxMessageBytes)
		if err != nil {
			return
		}
		if mode == "hang" {
			continue
		}
		var m wireMessage
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize", "shutdown":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			if m.Method == "initialize" && mode == "flood" {
				go func() {
					for i := 0; ; i++ {
						send(map[string]any{"jsonrpc": "2.0", "method": "window/logMessage", "params": map[string]any{"type": 3, "message": strings.Repeat("x", 1000)}})
						if i%100 == 0 {
							time.Sleep(time.Millisecond)
						}
					}
				}()
			}
		case "exit":
			return
		case "textDocument/didOpen", "textDocument/didChange":
			if mode != "good" {
				continue
			}
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			}
			_ = json.Unmarshal(m.Params, &p)
			text := p.TextDocument.Text
			if len(p.ContentChanges) > 0 {
				text = p.ContentChanges[0].Text
			}
			diags := []map[string]any{}
			for i, line := range strings.Split(text, "\n") {
				if c := strings.Index(line, "BAD"); c >= 0 {
					diags = append(diags, map[string]any{"range": map[string]any{"start": map[string]int{"line": i, "character": c}, "end": map[string]int{"line": i, "character": c + 3}},
						"severity": 1, "message": "bad thing"})
				}
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
				"params": map[string]any{"uri": p.TextDocument.URI, "version": p.TextDocument.Version, "diagnostics": diags}})
		}
	}
}
