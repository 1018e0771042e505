package loop

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// A server that refuses tools (Ollama's 400) turns the session to chat
// only: one note, the step retried without tools, the turn completes, and
// the next turn sends none either.
func TestServerRefusingToolsSwitchesToChat(t *testing.T) {
	h := newHarness(t,
		pt.HTTPError(400, nil, `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error"}}`),
		pt.Text("hello from chat"), pt.Text("again"))
	res := h.turn("hi")
	if res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("turn = %+v", res)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Chat.Tools) == 0 {
		t.Fatal("the first request had no tools")
	}
	if len(reqs[1].Chat.Tools) != 0 || reqs[1].Chat.ToolChoice != nil {
		t.Errorf("the retried request has tools: %d", len(reqs[1].Chat.Tools))
	}
	if res := h.turn("more"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if reqs := h.srv.Requests(); len(reqs) != 3 || len(reqs[2].Chat.Tools) != 0 {
		t.Errorf("the next turn's request has tools")
	}
	var notes []string
	for _, ev := range h.eventsOf(message.EventNote) {
		if strings.Contains(ev.Note, "cannot use tools") {
			notes = append(notes, ev.Note)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "does not support tools") {
		t.Errorf("notes = %q, want one", notes)
	}
	if errs := h.eventsOf(message.EventError); len(errs) != 0 {
		t.Errorf("errors = %+v", errs)
	}
	// The refused attempt is not sent again.
	for _, m := range h.request(2) {
		if m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Errorf("an empty assistant message was sent: %+v", m)
		}
	}
}

// tools: false in the config sends no tools from the first request.
func TestConfigToolsFalseSendsNone(t *testing.T) {
	h := newHarnessWith(t, func(_ *Options, c *config.Config) {
		info, _ := c.ModelInfo("gpt-4.1")
		info.NoTools = true
		c.Models["gpt-4.1"] = info
	}, pt.Text("hi"))
	if res := h.turn("hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(h.srv.Requests()[0].Chat.Tools); n != 0 {
		t.Errorf("%d tools sent", n)
	}
	if len(h.eventsOf(message.EventNote)) != 0 {
		t.Errorf("notes = %+v", h.eventsOf(message.EventNote))
	}
}

// A refusal the request cannot fix by dropping tools (none were sent)
// stays an error.
func TestToolRefusalWithoutToolsIsAnError(t *testing.T) {
	refuse := pt.HTTPError(400, nil, `{"error":{"message":"model does not support tools"}}`)
	h := newHarness(t, refuse, refuse)
	res := h.turn("hi")
	if res.Err == nil || !strings.Contains(res.Err.Error(), "does not support tools") {
		t.Fatalf("turn = %+v", res)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
