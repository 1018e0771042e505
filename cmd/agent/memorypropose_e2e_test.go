package main

import (
	"strings"
	"testing"
)

// TestE2EProposedMemoryHeadless: with memory.remember "propose", a
// headless run's remember tells the model the memory waits for the
// user's review, the run says so in one line on stderr, and agent memory
// list shows it as proposed.
func TestE2EProposedMemoryHeadless(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(memoryScript)
	e.writeUserConfig(`{"memory": {"remember": "propose"}}`)
	res := e.run("", "run", "remember: Releases are tagged vX.Y.Z")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	told := reqs[len(reqs)-1].Chat.Messages
	if got := told[len(told)-1].Content; !strings.Contains(got, "the user reviews it") {
		t.Errorf("the tool result does not say the memory waits for review: %q", got)
	}
	if n := strings.Count(res.stderr, "proposed"); n != 1 || !strings.Contains(res.stderr, "agent: the model proposed 1 memory for your review (Releases are tagged vX.Y.Z): accept or reject it with /memory in the chat; agent memory list shows it\n") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	if strings.Contains(res.stdout, "for your review") {
		t.Errorf("the line reached stdout: %q", res.stdout)
	}
	if out := e.run("", "memory", "list").stdout; !strings.Contains(out, "[project, proposed] Releases are tagged vX.Y.Z") {
		t.Errorf("memory list:\n%s", out)
	}
	// A run that proposes nothing says nothing about the earlier one.
	if res := e.run("", "run", "-c", "hello"); strings.Contains(res.stderr, "proposed") {
		t.Errorf("a later run tells of it again: %s", res.stderr)
	}
}
