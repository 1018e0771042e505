package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// withServer points the chat at srv with no model named anywhere.
func withServer(t *testing.T, srv *pt.Server) harnessOption {
	home := t.TempDir()
	cfg, err := config.Load(config.Flags{BaseURL: srv.URL, DataDir: t.TempDir()}, t.TempDir(),
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	return func(o *Options) {
		o.Loop.Provider = provider.NewOpenAI(provider.Config{BaseURL: srv.URL})
		o.Loop.Config = cfg
	}
}

func TestModelPickerListsTheServersModels(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.SetModels("llama3.1", "qwen2.5-coder")
	h.typeText("/model")
	h.key("enter")
	h.waitScreen("qwen2.5-coder")
	if s := h.screen(); !strings.Contains(s, "llama3.1") || !strings.Contains(s, "gpt-4.1") {
		t.Errorf("the picker should list the server's models and the catalog:\n%s", s)
	}
}

func TestFirstRunOnACustomServerAsksForAModel(t *testing.T) {
	srv := pt.New(t, pt.Text("hello from llama"))
	srv.SetModels("qwen2.5-coder", "llama3.1")
	h := newHarness(t, nil, withServer(t, srv))
	h.waitScreen("qwen2.5-coder")
	if _, ok := h.m.drawer.(*pickerDrawer); !ok {
		t.Fatalf("no model picker opened on the first run:\n%s", h.screen())
	}
	// Closing it and sending does not send gpt-4.1: the picker comes back
	// and the text stays in the editor.
	h.key("esc")
	h.typeText("hi")
	h.key("enter")
	if _, ok := h.m.drawer.(*pickerDrawer); !ok {
		t.Fatalf("sending without a model did not ask for one:\n%s", h.screen())
	}
	if got := h.m.editor.value(); got != "hi" {
		t.Errorf("editor %q, want the text kept", got)
	}
	h.waitScreen("qwen2.5-coder")
	h.typeText("llama")
	h.key("enter")
	h.waitFor("the picker to close", func(m *Model) bool { return m.drawer == nil })
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(srv.Requests()) == 1 })
	if got := srv.Requests()[0].Chat.Model; got != "llama3.1" {
		t.Errorf("request model %q, want llama3.1", got)
	}
}

func TestFirstRunUsesTheServersOnlyModel(t *testing.T) {
	srv := pt.New(t, pt.Text("hello"))
	srv.SetModels("llama3.1")
	h := newHarness(t, nil, withServer(t, srv))
	h.waitScreen("llama3.1, the only model")
	if n := strings.Count(h.screen(), "model: llama3.1"); n != 1 {
		t.Errorf("%d notices name the model, want one:\n%s", n, h.screen())
	}
	h.typeText("hi")
	h.key("enter")
	h.waitFor("the turn", func(m *Model) bool { return idle(m) && len(srv.Requests()) == 1 })
	if got := srv.Requests()[0].Chat.Model; got != "llama3.1" {
		t.Errorf("request model %q, want llama3.1", got)
	}
}
