package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// effortOf is the reasoning_effort of a recorded request ("" when absent).
func effortOf(t *testing.T, req pt.Request) string {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if _, ok := body["reasoning"]; ok {
		t.Errorf("a local server was sent OpenRouter's reasoning object: %s", req.Body)
	}
	s, _ := body["reasoning_effort"].(string)
	return s
}

// TestE2ERunEffort: agent run --effort reaches the server (a local one:
// 127.0.0.1, in OpenAI's dialect) for a catalog model that takes the
// level and for a model no catalog row describes; the config's
// models.NAME.effort applies without the flag and the flag wins over it;
// a model that does not reason is sent nothing. A level the model does
// not take, or an unknown word, exits 2 before any request, naming the
// levels the model takes.
func TestE2ERunEffort(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"models": {"o3": {"effort": "medium"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		sent string // the effort sent, when the run makes a request
		says string // on stderr, when refused
	}{
		{args: []string{"--model", "o3", "--effort", "high"}, sent: "high"},
		{args: []string{"--model", "my-local-qwen", "--effort", "low"}, sent: "low"},
		{args: []string{"--model", "o3"}, sent: "medium"},
		{args: []string{"--model", "gpt-4.1"}, sent: ""},
		{args: []string{"--model", "o3", "--effort", "minimal"}, code: 2, says: "--effort minimal: model o3 takes reasoning effort low, medium or high, not minimal"},
		{args: []string{"--model", "gpt-4.1", "--effort", "high"}, code: 2, says: "--effort high: model gpt-4.1 takes no reasoning effort"},
		{args: []string{"--model", "gpt-5", "--effort", "turbo"}, code: 2, says: `unknown reasoning effort "turbo": want none, minimal, low, medium, high, xhigh or max`},
	} {
		before := len(e.srv.Requests())
		if tt.code == 0 {
			e.srv.Add(pt.Text("done"))
		}
		res := e.run("", append(append([]string{"run"}, tt.args...), "think about it")...)
		if res.code != tt.code || !strings.Contains(res.stderr, tt.says) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, res.code, res.stderr, tt.code, tt.says)
			continue
		}
		reqs := e.srv.Requests()[before:]
		switch {
		case tt.code != 0 && len(reqs) != 0:
			t.Errorf("%v: refused, yet %d requests made", tt.args, len(reqs))
		case tt.code == 0 && len(reqs) != 1:
			t.Errorf("%v: %d requests, want 1", tt.args, len(reqs))
		case tt.code == 0:
			if got := effortOf(t, reqs[0]); got != tt.sent {
				t.Errorf("%v: reasoning_effort %q sent, want %q", tt.args, got, tt.sent)
			}
		}
	}
}
