package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/lastmodel"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// The model last chosen (in the chat's picker) is remembered: a headless
// run on the same server without --model uses it instead of exiting 2,
// and `agent models` says where the current model came from.
func TestE2ERunUsesTheRememberedModel(t *testing.T) {
	e := newEnv(t, pt.Text("hello from qwen"))
	e.without("AGENT_MODEL")
	e.srv.SetModels("qwen2.5-coder", "llama3.1")
	work, err := filepath.EvalSymlinks(e.work)
	if err != nil {
		t.Fatal(err)
	}
	if err := lastmodel.Save(e.data, work, e.srv.URL, "qwen2.5-coder"); err != nil {
		t.Fatal(err)
	}
	res := e.run("", "run", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if reqs := e.srv.Requests(); len(reqs) != 1 || reqs[0].Chat.Model != "qwen2.5-coder" {
		t.Fatalf("requests %d; want one for the remembered qwen2.5-coder", len(reqs))
	}
	res = e.run("", "models")
	if res.code != 0 {
		t.Fatalf("models: exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stdout, "current model: qwen2.5-coder (remembered: last chosen in this project") {
		t.Errorf("agent models does not say where the model came from:\n%s", res.stdout)
	}
	res = e.run("", "models", "--json")
	if !strings.Contains(res.stdout, `"current_from": "project memory"`) {
		t.Errorf("agent models --json does not say where the model came from:\n%.2000s", res.stdout)
	}
	// A named model still wins over the memory.
	e.srv.Add(pt.Text("hello from llama"))
	if res := e.run("", "run", "--model", "llama3.1", "hi"); res.code != 0 {
		t.Fatalf("--model: exit %d: %s", res.code, res.stderr)
	}
	if reqs := e.srv.Requests(); reqs[len(reqs)-1].Chat.Model != "llama3.1" {
		t.Errorf("--model llama3.1 sent %q", reqs[len(reqs)-1].Chat.Model)
	}
}
