package loop

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// wireMessages decodes a request body's messages, as sent.
func wireMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var w struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	return w.Messages
}

func marked(t *testing.T, m json.RawMessage) bool {
	t.Helper()
	var msg struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(m, &msg); err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		CacheControl *struct {
			Type string `json:"type"`
		} `json:"cache_control"`
	}
	if json.Unmarshal(msg.Content, &parts) != nil || len(parts) == 0 {
		return false
	}
	cc := parts[len(parts)-1].CacheControl
	return cc != nil && cc.Type == "ephemeral"
}

// An Anthropic model through an OpenRouter-style gateway gets breakpoints
// on the stable system prompt and the last message, and the second step's
// request starts with the first one's bytes: the prefix it wrote is read
// back unchanged.
func TestAnthropicRequestsCarryBreakpointsOnAStablePrefix(t *testing.T) {
	h := newHarnessWith(t, func(_ *Options, c *config.Config) { c.Model = "anthropic/claude-sonnet-4.5" },
		pt.ToolCall("c1", "ls", "{}"), pt.Text("done"))
	if res := h.turn("list the files"); res.Err != nil {
		t.Fatal(res.Err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, second := wireMessages(t, reqs[0].Body), wireMessages(t, reqs[1].Body)
	if len(reqs[0].Chat.Tools) == 0 || len(reqs[1].Chat.Tools) == 0 {
		t.Fatal("no tools sent")
	}
	want := map[int]bool{0: true, len(first) - 1: true}
	for i, m := range first {
		if marked(t, m) != want[i] {
			t.Errorf("first request, message %d marked %v, want %v: %s", i, !want[i], want[i], m)
		}
	}
	// Second: the system prompt, the first request's last message (read
	// back) and the new last message.
	want = map[int]bool{0: true, len(first) - 1: true, len(second) - 1: true}
	for i, m := range second {
		if marked(t, m) != want[i] {
			t.Errorf("second request, message %d marked %v, want %v: %s", i, !want[i], want[i], m)
		}
	}
	if n := bytes.Count(reqs[1].Body, []byte(`"cache_control"`)); n > 4 {
		t.Errorf("%d breakpoints, the provider takes 4", n)
	}
	// The first body, less its closing "]}", opens the second.
	prefix := bytes.TrimSuffix(reqs[0].Body, []byte("]}"))
	if len(prefix) == len(reqs[0].Body) || !bytes.HasPrefix(reqs[1].Body, prefix) {
		t.Errorf("the second request does not start with the first one's bytes:\n%s\n%s", reqs[0].Body, reqs[1].Body)
	}
	// The system prompt's text is unchanged by the marking.
	if reqs[0].Chat.Messages[0].MultiContent[0].Text == "" {
		t.Error("the marked system prompt lost its text")
	}
}

// Models cached automatically get no markers: their requests are as before.
func TestAutomaticCacheSendsNoBreakpoints(t *testing.T) {
	h := newHarness(t, pt.ToolCall("c1", "ls", "{}"), pt.Text("done"))
	if res := h.turn("list the files"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for i, r := range h.srv.Requests() {
		if bytes.Contains(r.Body, []byte("cache_control")) {
			t.Errorf("request %d has cache_control: %s", i, r.Body)
		}
	}
}
