package main

import (
	"regexp"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// `agent run -c` on a 10,000-part session answers without a garbage
// collection (startheap.go): its ≈ 3.5 MB of start-up allocations crossed
// the runtime's 4 MB starting goal, and the collection that started cost
// CPU and resident memory for a process about to exit. GODEBUG=gctrace=1
// prints a line for each collection.
func TestE2EResumeRunDoesNotCollect(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(func(pt.Request) pt.Step { return pt.Text(benchAnswer) })
	seedLongSession(t, e.data, e.work, 10_000)
	e.vars = append(e.vars, "GODEBUG=gctrace=1")
	r := e.run("", "run", "-c", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, benchAnswer) {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if gcs := regexp.MustCompile(`(?m)^gc \d+ @`).FindAllString(r.stderr, -1); len(gcs) > 0 {
		t.Fatalf("the resumed run collected %d times:\n%s", len(gcs), r.stderr)
	}
	// The run continued the session: the request sent its history.
	if reqs := e.srv.Requests(); len(reqs) == 0 || len(reqs[0].Chat.Messages) < 100 {
		t.Fatalf("the request did not send the long session's window")
	}
}
