package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/storage"
)

// TestE2ETUIMemoryPanel: /memory lists a memory added by hand and one the
// model proposed; accepting the proposed one and deleting the other
// (after its confirmation) leave the database as agent memory list
// --json then shows it.
func TestE2ETUIMemoryPanel(t *testing.T) {
	e := newEnv(t)
	e.srv.Handle(memoryScript)
	e.writeUserConfig(`{"memory": {"remember": "propose"}}`)
	if res := e.run("", "memory", "add", "The build runs with make all"); res.code != 0 {
		t.Fatalf("memory add: %s", res.stderr)
	}
	if res := e.run("", "run", "remember: Releases are tagged vX.Y.Z"); res.code != 0 {
		t.Fatalf("run: %s", res.stderr)
	}

	s := startTUI(t, e)
	s.send("/memory")
	screen := s.waitText("Memory (2 · 1 proposed)")
	for _, want := range []string{"The build runs with make all", "by you", "proposed", "Releases are tagged vX.Y.Z"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the panel lacks %q:\n%s", want, screen)
		}
	}
	s.keys("j")
	s.waitText("a accept · r reject")
	s.keys("a")
	s.waitText("accepted")
	s.waitText("Memory (2)")
	s.keys("k", "d")
	s.waitText("delete this memory? y delete")
	s.keys("y")
	screen = s.waitText("Memory (1)")
	if strings.Contains(screen, "The build runs with make all") {
		t.Fatalf("the deleted memory is still listed:\n%s", screen)
	}
	s.keys("Escape")
	s.waitFor("the panel to close", func(screen string) bool { return !strings.Contains(screen, "Memory (1)") })

	res := e.run("", "memory", "list", "--json")
	if res.code != 0 {
		t.Fatalf("memory list: %s", res.stderr)
	}
	var ms []storage.Memory
	if err := json.Unmarshal([]byte(res.stdout), &ms); err != nil {
		t.Fatalf("memory list --json: %v\n%s", err, res.stdout)
	}
	if len(ms) != 1 || ms[0].Text != "Releases are tagged vX.Y.Z" || ms[0].Status != storage.MemoryActive || ms[0].SessionID == "" {
		t.Fatalf("after accept and delete: %+v", ms)
	}
}
