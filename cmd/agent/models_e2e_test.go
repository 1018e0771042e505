package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// A custom server and no model named anywhere: a headless run does not
// send OpenAI's default model to it; it says what to pass and exits 2.
func TestE2ERunWithoutModelOnCustomServerSaysWhichToPass(t *testing.T) {
	e := newEnv(t, pt.Text("never sent"))
	e.without("AGENT_MODEL")
	e.srv.SetModels("qwen2.5-coder", "llama3.1")
	res := e.run("", "run", "hi")
	if res.code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", res.code, exitUsage, res.stderr)
	}
	want := "no model chosen for " + e.srv.URL + ": pass --model NAME (the server offers: llama3.1, qwen2.5-coder)"
	if !strings.Contains(res.stderr, want) {
		t.Errorf("stderr %q\nwant it to contain %q", res.stderr, want)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d chat requests sent without a model", n)
	}
	// A server whose list cannot be read still gets no guessed model.
	e.srv.SetModelsError(http.StatusNotFound, "no such route")
	res = e.run("", "run", "hi")
	if res.code != exitUsage || !strings.Contains(res.stderr, "no model chosen for "+e.srv.URL+": pass --model NAME") {
		t.Errorf("unlisted server: exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d chat requests sent without a model", n)
	}
}

// A server that serves one model leaves nothing to choose: the run uses
// it and says so on stderr.
func TestE2ERunUsesTheServersOnlyModel(t *testing.T) {
	e := newEnv(t, pt.Text("hello from llama"))
	e.without("AGENT_MODEL")
	e.srv.SetModels("llama3.1")
	res := e.run("", "run", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "llama3.1") {
		t.Errorf("stderr %q does not say which model was used", res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || reqs[0].Chat.Model != "llama3.1" {
		t.Fatalf("requests %d, model %q; want one for llama3.1", len(reqs), reqs[0].Chat.Model)
	}
	// A continued session keeps its model without asking the server.
	e.srv.Add(pt.Text("again"))
	e.srv.SetModels("llama3.1", "qwen2.5-coder")
	res = e.run("", "run", "-c", "more")
	if res.code != 0 {
		t.Fatalf("continue: exit %d: %s", res.code, res.stderr)
	}
	if reqs := e.srv.Requests(); len(reqs) != 2 || reqs[1].Chat.Model != "llama3.1" {
		t.Errorf("continued session's request used %q", reqs[len(reqs)-1].Chat.Model)
	}
}

func TestE2EModelsListsTheServersModels(t *testing.T) {
	e := newEnv(t)
	e.without("AGENT_MODEL")
	e.srv.SetModels("qwen2.5-coder", "llama3.1")
	res := e.run("", "models", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rows []modelRow
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil {
		t.Fatalf("models --json: %v\n%s", err, res.stdout)
	}
	if len(rows) < 3 || rows[0].ID != "llama3.1" || !rows[0].Served || rows[1].ID != "qwen2.5-coder" || !rows[1].Served {
		t.Fatalf("rows start %+v; want the server's two models first", rows[:min(3, len(rows))])
	}
	var catalog bool
	for _, r := range rows[2:] {
		if r.Served {
			t.Errorf("%s marked served", r.ID)
		}
		if r.ID == "gpt-4.1" && r.ContextWindow > 0 {
			catalog = true
		}
	}
	if !catalog {
		t.Errorf("the catalog's gpt-4.1 is not listed with its window")
	}
	if len(e.srv.ModelRequests()) != 1 {
		t.Errorf("%d model requests, want 1", len(e.srv.ModelRequests()))
	}

	text := e.run("", "models")
	if text.code != 0 || !strings.Contains(text.stdout, "llama3.1") || !strings.Contains(text.stdout, "gpt-4.1") {
		t.Errorf("models: exit %d\n%s\n%s", text.code, text.stdout, text.stderr)
	}

	// A server that cannot list falls back to the catalog, with a note.
	e.srv.SetModelsError(http.StatusInternalServerError, "boom")
	res = e.run("", "models", "--json")
	if res.code != 0 || !strings.Contains(res.stderr, "catalog") {
		t.Fatalf("failing server: exit %d, stderr %q", res.code, res.stderr)
	}
	rows = nil
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil || len(rows) == 0 || rows[0].Served {
		t.Errorf("failing server: %v %+v", err, rows)
	}
}

// `agent models --json` gives a catalog model's figures with their source
// and date, and names what the user's config overrides; the table says it
// too.
func TestE2EModelsShowsCatalogFiguresAndOverrides(t *testing.T) {
	e := newEnv(t)
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"models": {"gpt-4.1": {"context_window": 200000, "price": {"input": 1.5}},
		"local-coder": {"context_window": 16384, "tools": false}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res := e.run("", "models", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rows []modelRow
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil {
		t.Fatalf("models --json: %v\n%s", err, res.stdout)
	}
	byID := map[string]modelRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	mini := byID["gpt-5-mini"]
	if mini.ContextWindow != 400000 || mini.InputLimit != 272000 || mini.MaxOutput != 128000 ||
		mini.Price == nil || *mini.Price != (config.Price{Input: 0.25, Output: 2.00, CacheRead: 0.025}) ||
		!mini.Vision || mini.Cache != config.CacheAutomatic || !mini.Tools ||
		mini.Source != "models.dev openai" || mini.AsOf == "" || len(mini.Overridden) != 0 {
		t.Errorf("gpt-5-mini: %+v", mini)
	}
	if c := byID["claude-haiku-4.5"]; c.Cache != config.CacheExplicit || c.Price == nil || c.Price.CacheWrite != 1.25 {
		t.Errorf("claude-haiku-4.5: %+v", c)
	}
	g := byID["gpt-4.1"]
	if g.ContextWindow != 200000 || g.Price == nil || g.Price.Input != 1.5 || g.Price.Output != 8.00 ||
		!slices.Equal(g.Overridden, []string{"context_window", "price.input"}) || !g.Current {
		t.Errorf("gpt-4.1 with a config override: %+v", g)
	}
	if l := byID["local-coder"]; !l.Known || l.ContextWindow != 16384 || l.Tools || l.Source != "config" || l.Price != nil {
		t.Errorf("local-coder: %+v", l)
	}

	text := e.run("", "models")
	if text.code != 0 {
		t.Fatalf("models: exit %d: %s", text.code, text.stderr)
	}
	var line41 string
	for _, l := range strings.Split(text.stdout, "\n") {
		if strings.HasPrefix(l, "* gpt-4.1 ") {
			line41 = l
		}
	}
	if !strings.Contains(line41, "200K") || !strings.Contains(line41, "config sets context_window price.input") || !strings.Contains(line41, "1.5") {
		t.Errorf("gpt-4.1's line %q\n%s", line41, text.stdout)
	}
}
