package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/snapshot"
)

// TestSkippedCheckpointStepGoesOn: a slow "before" checkpoint reports its
// progress as events with counts; the user skips it at the first one; the
// step's write still happens, checkpointed by the path its tool names (the
// step's patch holds new.txt, so undo can take it back), a note says the
// session keeps only such paths, and a Finished event ends the progress.
func TestSkippedCheckpointStepGoesOn(t *testing.T) {
	needGit(t)
	t.Cleanup(snapshot.TuneProgress(5, 0, 0))
	var h *harness
	h = newHarnessWith(t, func(o *Options, _ *config.Config) {
		observe := o.Observer
		o.Observer = func(ev message.Event) {
			if ev.Type == message.EventCheckpointProgress && ev.Checkpoint != nil && !ev.Checkpoint.Finished {
				ev.Checkpoint.Skip()
			}
			observe(ev)
		}
	},
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"new.txt","content":"brand new\n"}`}),
		pt.Text("Done."))
	for i := range 30 {
		os.WriteFile(filepath.Join(h.dir, fmt.Sprintf("f%02d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
	}
	if res := h.turn("write it"); res.Err != nil {
		t.Fatalf("turn: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "new.txt")); err != nil || string(b) != "brand new\n" {
		t.Fatalf("the step did not go on: new.txt = %q, %v", b, err)
	}
	evs := h.eventsOf(message.EventCheckpointProgress)
	if len(evs) != 2 {
		t.Fatalf("%d progress events, want one report and one Finished (the skip stops it)", len(evs))
	}
	if c := evs[0].Checkpoint; c.Done != 5 || c.Total != 30 || c.Finished || !strings.Contains(c.Text(), "5/30 files") {
		t.Errorf("first progress = %+v (%q), want 5/30", *c, c.Text())
	}
	if !evs[1].Checkpoint.Finished {
		t.Errorf("last progress event is not Finished: %+v", *evs[1].Checkpoint)
	}
	found := false
	for _, n := range h.r.Notes() {
		found = found || n == skippedNote
	}
	if !found {
		t.Errorf("notes %q, want %q", h.r.Notes(), skippedNote)
	}
	turns := Turns(h.r.History())
	if len(turns) != 1 || len(turns[0].Patches) != 1 || !strings.Contains(fmt.Sprint(turns[0].Patches[0].Files), "new.txt") {
		t.Fatalf("the skipped step's patch does not hold new.txt: %+v", turns)
	}
}
