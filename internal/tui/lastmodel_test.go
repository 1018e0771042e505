package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/lastmodel"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// With a local server and no model configured, choosing the model the
// picker marks current (here the default, which the server also serves)
// proceeds: the message typed before is sent, the picker does not come
// back, and the choice is remembered for the next start.
func TestPickingTheCurrentModelSendsAndNeverLoops(t *testing.T) {
	srv := pt.New(t, pt.Text("hello"))
	srv.SetModels("gpt-4.1", "llama3.1")
	h := newHarness(t, nil, withServer(t, srv))
	h.waitScreen("llama3.1")
	h.key("esc")
	h.typeText("hi")
	h.key("enter") // no model yet: the picker opens, the text stays
	h.waitScreen("llama3.1")
	if _, ok := h.m.drawer.(*pickerDrawer); !ok {
		t.Fatalf("no picker:\n%s", h.screen())
	}
	h.typeText("gpt-4.1")
	h.key("enter")
	h.waitFor("the message sent with the model chosen", func(m *Model) bool { return idle(m) && len(srv.Requests()) == 1 })
	if got := srv.Requests()[0].Chat.Model; got != "gpt-4.1" {
		t.Errorf("request model %q, want gpt-4.1", got)
	}
	if h.m.drawer != nil {
		t.Errorf("a drawer is open after the choice:\n%s", h.screen())
	}
	cfg := h.m.opt.Loop.Config
	h.waitFor("the choice remembered", func(m *Model) bool {
		model, _ := lastmodel.Lookup(cfg.DataDir, m.opt.Loop.Dir, cfg.BaseURL)
		return model == "gpt-4.1"
	})

	// /new then Enter: the model chosen carries over, no picker.
	srv.Add(pt.Text("again"))
	h.typeText("/new")
	h.key("enter")
	h.typeText("more")
	h.key("enter")
	h.waitFor("the second message sent", func(m *Model) bool { return idle(m) && len(srv.Requests()) == 2 })
	if h.m.drawer != nil {
		t.Errorf("the picker reopened after /new:\n%s", h.screen())
	}
}

// A switch in an open session is remembered too.
func TestSwitchInASessionIsRemembered(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Text("hello")})
	h.typeText("hi")
	h.key("enter")
	// The turn has answered and ended (idle alone also holds before it
	// starts, and the switch is refused while it runs).
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "hello") })
	h.typeText("/model gpt-4.1-mini")
	h.key("enter")
	cfg := h.m.opt.Loop.Config
	h.waitFor("the switch remembered", func(m *Model) bool {
		model, _ := lastmodel.Lookup(cfg.DataDir, m.opt.Loop.Dir, cfg.BaseURL)
		return model == "gpt-4.1-mini"
	})
}
