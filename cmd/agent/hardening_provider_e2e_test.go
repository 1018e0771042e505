package main

// End-to-end tests of the provider hardening (issue 11): a silent server
// times out, is retried, and fails the run with a message naming the
// timeout.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// runBounded runs the binary and fails the test if it has not exited
// within limit.
func (e *env) runBounded(limit time.Duration, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir, cmd.Env = e.work, e.vars
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		e.t.Fatalf("agent %v still running after %v; stderr: %s", args, limit, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run agent %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// writeUserConfig writes a user config file and returns its path.
func writeUserConfig(t *testing.T, json string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestE2ESilentProviderTimesOut(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(func(pt.Request) pt.Step { return pt.Hang() })
	e.vars = append(e.vars, "AGENT_CONFIG="+writeUserConfig(t, `{"stream_idle_timeout_s": 0.3}`))
	want := fmt.Sprintf("no data for 0.3 s (stream_idle_timeout_s) from %s", e.srv.URL)

	start := time.Now()
	res := e.runBounded(30*time.Second, "run", "--format", "json", "hi")
	// A run in text mode reports the same error on stderr, from the same
	// done event: one run is enough.
	elapsed := time.Since(start)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", res.code, res.stderr)
	}
	evs := jsonEvents(t, res.stdout)
	var retries int
	for _, ev := range evs {
		if ev["type"] == "retrying" {
			retries++
			if !strings.Contains(fmt.Sprint(ev["reason"]), want) {
				t.Errorf("retrying event %v does not name the timeout %q", ev, want)
			}
		}
	}
	last := evs[len(evs)-1]
	if last["type"] != "done" || !strings.Contains(fmt.Sprint(last["error"]), want) {
		t.Errorf("last event %v, want done with %q", last, want)
	}
	if got := len(e.srv.Requests()); got < 2 || got != retries+1 {
		t.Errorf("the server saw %d requests and the run announced %d retries: want retries, one request each", got, retries)
	}
	t.Logf("%d attempts, exit after %v", retries+1, elapsed.Round(time.Millisecond))

}
