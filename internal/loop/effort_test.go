package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// sentEffort is the reasoning_effort of the server's n-th request ("" when
// absent).
func sentEffort(t *testing.T, h *harness, n int) string {
	t.Helper()
	var body struct {
		Effort *string `json:"reasoning_effort"`
	}
	if err := json.Unmarshal(h.srv.Requests()[n].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Effort == nil {
		return ""
	}
	return *body.Effort
}

// messagesOf is the raw "messages" array of the server's n-th request.
func messagesOf(t *testing.T, h *harness, n int) []byte {
	t.Helper()
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(h.srv.Requests()[n].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Messages
}

// TestEffortReachesTheRequest: the stepper's request carries the effort
// the user chose (Options.Effort), changed between turns by Set, as a
// parameter only — the messages sent before stay byte for byte the
// prefix of the next request's — and a model whose catalog row says it
// does not reason is sent none, whatever was chosen.
func TestEffortReachesTheRequest(t *testing.T) {
	effort := NewEffort("high")
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model, o.Effort = "o3", effort
	}, pt.Text("one"), pt.Text("two"), pt.Text("three"))
	h.turn("first")
	if got := sentEffort(t, h, 0); got != "high" {
		t.Fatalf("first request's effort %q, want high", got)
	}
	effort.Set("low")
	h.turn("second")
	if got := sentEffort(t, h, 1); got != "low" {
		t.Fatalf("after Set(low): %q", got)
	}
	first, second := messagesOf(t, h, 0), messagesOf(t, h, 1)
	if !bytes.HasPrefix(second, first[:len(first)-1]) {
		t.Errorf("the effort changed the messages:\n%s\n%s", first, second)
	}
	if err := h.r.SetModel(context.Background(), "gpt-4.1"); err != nil {
		t.Fatal(err)
	}
	h.turn("third")
	if got := sentEffort(t, h, 2); got != "" {
		t.Errorf("gpt-4.1 (no reasoning) was sent effort %q", got)
	}
}

// TestEffortFromConfig: with nothing chosen, the config's
// models.NAME.effort of the session's model is sent; a model no catalog
// row describes is sent what was asked (a local server's model).
func TestEffortFromConfig(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "o3"
		info, _ := c.ModelInfo("o3")
		info.Effort = "medium"
		c.Models["o3"] = info
	}, pt.Text("one"), pt.Text("two"))
	h.turn("first")
	if got := sentEffort(t, h, 0); got != "medium" {
		t.Errorf("config effort: %q, want medium", got)
	}
	if got := EffortSent(NewEffort("high"), "my-local-model", config.ModelInfo{}); got != "high" {
		t.Errorf("an undescribed model: %q, want high", got)
	}
	if got := EffortSent(nil, "my-local-model", config.ModelInfo{Effort: "low"}); got != "low" {
		t.Errorf("nil Effort, config low: %q", got)
	}
}
