package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// The /context overlay and `agent context` show the prompt-cache figures
// of the status line, and agree: a first step that read nothing (cache
// null), then one that read 1000 of its 1100 input tokens from the cache
// (90% of the last step, 1000 of 2100 = 47% of the session).
func TestE2EContextShowsCacheFigures(t *testing.T) {
	e := newEnv(t,
		textUsage("first", pt.Usage{Prompt: 1000, Completion: 5}),
		textUsage("second", pt.Usage{Prompt: 1100, Cached: 1000, Completion: 5}),
	)
	contextJSON := func() (cache *message.CacheFigures, raw map[string]any) {
		t.Helper()
		res := e.run("", "context", "-c", "--json")
		if res.code != 0 {
			t.Fatalf("agent context: exit %d: %s", res.code, res.stderr)
		}
		if err := json.Unmarshal([]byte(res.stdout), &raw); err != nil {
			t.Fatalf("agent context --json: %v\n%s", err, res.stdout)
		}
		var v struct {
			Cache *message.CacheFigures `json:"cache"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &v); err != nil {
			t.Fatal(err)
		}
		return v.Cache, raw
	}

	s := startTUI(t, e, "--model", "m")
	s.send("one")
	s.waitText("first")
	s.idle()
	if cache, raw := contextJSON(); cache != nil || raw["cache"] != nil {
		t.Errorf("cache %+v before any step read the cache", cache)
	} else if _, ok := raw["cache"]; !ok {
		t.Errorf("agent context --json has no cache field: %v", raw)
	}
	if text := e.run("", "context", "-c"); !strings.Contains(text.stdout, "Prompt cache: nothing read or written yet") {
		t.Errorf("agent context:\n%s", text.stdout)
	}

	s.send("two")
	s.waitText("second")
	s.idle()
	s.send("/context")
	screen := s.waitText("Prompt cache:")
	m := regexp.MustCompile(`Prompt cache: last step (\d+)% of its input read from the cache, session (\d+)%`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no cache figures in /context:\n%s", screen)
	}
	cache, _ := contextJSON()
	if cache == nil {
		t.Fatal("agent context --json: cache null after a step read the cache")
	}
	if cache.LastHitRate != 1000.0/1100 || cache.SessionCachedShare != 1000.0/2100 {
		t.Errorf("agent context --json cache %+v, want 1000/1100 and 1000/2100", *cache)
	}
	// The overlay's whole percents are the JSON's shares rounded down.
	if want := []string{fmt.Sprint(int(100 * cache.LastHitRate)), fmt.Sprint(int(100 * cache.SessionCachedShare))}; m[1] != want[0] || m[2] != want[1] || m[1] != "90" || m[2] != "47" {
		t.Errorf("/context shows %s%% and %s%%, agent context --json %v", m[1], m[2], *cache)
	}
	if text := e.run("", "context", "-c"); !strings.Contains(text.stdout, m[0]) {
		t.Errorf("agent context does not say %q:\n%s", m[0], text.stdout)
	}
	if !strings.Contains(screen, "cache 90% (47% session)") {
		t.Errorf("the status line does not show the same figures:\n%s", screen)
	}
}
