package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// /effort in the chat: without an argument it tells the effort and the
// model's levels; a level the model does not take is refused with them,
// the effort unchanged; a level it takes shows in the status line and
// rides on the next request.
func TestSlashEffort(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("thought hard")}, func(o *Options) {
		cfg := *o.Loop.Config
		cfg.Model = "o3"
		o.Loop.Config = &cfg
	})
	h.typeText("/effort")
	h.key("enter")
	h.waitScreen("model o3 takes low, medium or high")
	h.typeText("/effort minimal")
	h.key("enter")
	h.waitScreen("model o3 takes reasoning effort low, medium or high, not minimal")
	if got := h.m.opt.Loop.Effort.Chosen(); got != "" {
		t.Fatalf("a refused level was kept: %q", got)
	}
	h.typeText("/effort high")
	h.key("enter")
	h.waitScreen("effort high from the next request")
	if line := ansi.Strip(h.m.statusLine()); !strings.Contains(line, "o3 · effort high") {
		t.Errorf("status line %q lacks the effort", line)
	}
	h.typeText("think")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	var body struct {
		Effort string `json:"reasoning_effort"`
	}
	if err := json.Unmarshal(h.srv.Requests()[0].Body, &body); err != nil || body.Effort != "high" {
		t.Errorf("request's reasoning_effort %q (%v), want high", body.Effort, err)
	}
}

// effortNotice says what /effort would for a model that does not reason.
func TestEffortNoticeForAModelWithoutEffort(t *testing.T) {
	n := effortNotice(nil, &config.Config{Models: map[string]config.ModelInfo{}}, "gpt-4.1", "high")
	if n.kind != noticeError || !strings.Contains(n.text, "gpt-4.1 takes no reasoning effort") {
		t.Errorf("notice %+v", n)
	}
}
