package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// catalogData is a models.dev api.json in miniature with a model no
// embedded catalog knows.
const catalogData = `{
  "openai": {"id": "openai", "models": {
    "frontier-9": {"id": "frontier-9", "reasoning": true, "tool_call": true,
      "reasoning_options": [{"type": "effort", "values": ["low", "medium", "high"]}],
      "interleaved": {"field": "reasoning_content"},
      "cost": {"input": 2, "output": 8, "cache_read": 0.2},
      "limit": {"context": 777777, "output": 55555},
      "modalities": {"input": ["text"], "output": ["text"]}}}}}`

// `agent models --refresh` fetches a models.dev-shaped file from a local
// server into the data directory; later runs use it offline (a session on
// the new model gets its window); a failed refresh keeps it; a corrupt
// copy leaves the embedded catalog in force, with a warning naming it.
func TestE2EModelsRefreshFetchesTheCatalog(t *testing.T) {
	var body atomic.Value
	body.Store(catalogData)
	var requests atomic.Int32
	cat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the catalog request carries credentials")
		}
		w.Header().Set("Last-Modified", "Wed, 25 Nov 2026 10:00:00 GMT")
		w.Write([]byte(body.Load().(string)))
	}))
	defer cat.Close()

	e := newEnv(t, pt.Text("hello from frontier"))
	e.vars = append(e.vars, "AGENT_CATALOG_URL="+cat.URL+"/api.json")
	res := e.run("", "models", "--refresh", "--json")
	if res.code != 0 || !strings.Contains(res.stderr, "catalog refreshed: 3 models from "+cat.URL+"/api.json as of 2026-11-25") {
		t.Fatalf("models --refresh: exit %d\n%s", res.code, res.stderr)
	}
	var rows []modelRow
	if err := json.Unmarshal([]byte(res.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range rows {
		if r.ID == "frontier-9" {
			found = true
			if r.ContextWindow != 777777 || r.MaxOutput != 55555 || r.Efforts.String() != "low|medium|high" || r.Interleaved != "reasoning_content" || r.AsOf != "2026-11-25" {
				t.Errorf("frontier-9: %+v", r)
			}
		}
	}
	if !found {
		t.Fatalf("frontier-9 not listed after the refresh")
	}
	file := filepath.Join(e.data, "catalog.json")
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("catalog file: %v", err)
	}

	// Offline from here: the saved copy is used.
	cat.Close()
	n := requests.Load()
	run := e.run("", "run", "--model", "frontier-9", "hi")
	if run.code != 0 || strings.Contains(run.stderr, "not in the catalog") {
		t.Fatalf("run on frontier-9: exit %d\n%s", run.code, run.stderr)
	}
	ctx := e.run("", "context", "-c", "--json")
	var reading struct {
		Window int64 `json:"window"`
	}
	if err := json.Unmarshal([]byte(ctx.stdout), &reading); err != nil || reading.Window != 777777 {
		t.Errorf("context of the frontier-9 session: window %d (%v)\n%s", reading.Window, err, ctx.stderr)
	}
	text := e.run("", "models")
	if first, _, _ := strings.Cut(text.stdout, "\n"); !strings.Contains(first, file) || !strings.Contains(first, "as of 2026-11-25") {
		t.Errorf("models names the catalog as %q", first)
	}
	if requests.Load() != n {
		t.Errorf("later runs fetched the catalog again")
	}

	// A refresh whose data does not read keeps the saved copy.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"openai": {"models": {"x": {"limit": {"context": "huge"}}}}}`))
	}))
	defer bad.Close()
	e.vars = append(e.vars, "AGENT_CATALOG_URL="+bad.URL)
	if res := e.run("", "models", "--refresh"); res.code == 0 || !strings.Contains(res.stderr, "the catalog in force is kept") {
		t.Errorf("a bad refresh: exit %d\n%s", res.code, res.stderr)
	}
	if res := e.run("", "models", "--json"); !strings.Contains(res.stdout, `"frontier-9"`) {
		t.Errorf("the saved copy was lost by a bad refresh")
	}

	// A corrupt saved copy: the embedded catalog, with a warning.
	if err := os.WriteFile(file, []byte(`{"format": 1, "models": [{"name": "frontier-9",`), 0o600); err != nil {
		t.Fatal(err)
	}
	res = e.run("", "models")
	if res.code != 0 || !strings.Contains(res.stderr, "warning: catalog file "+file) || !strings.Contains(res.stderr, "using the embedded catalog") {
		t.Errorf("corrupt copy: exit %d\n%s", res.code, res.stderr)
	}
	if first, _, _ := strings.Cut(res.stdout, "\n"); !strings.Contains(first, "catalog: embedded") || strings.Contains(res.stdout, "frontier-9") || !strings.Contains(res.stdout, "gemini-3-pro-preview") {
		t.Errorf("corrupt copy: models lists\n%.300s", res.stdout)
	}
	assertNoKey(t, e.home)
}
