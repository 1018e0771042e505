package tokens

import (
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// costEntries are entries of every shape the converter sends or skips.
func costEntries() []message.Entry {
	tool := func(id string, st message.ToolStatus, out string, pruned bool) message.Part {
		ts := &message.ToolState{CallID: id, Name: "bash", Status: st, Input: `{"command":"go test ./..."}`, Output: out}
		if pruned {
			ts.CompactedAt = time.Unix(1, 0)
		}
		return message.Part{Type: message.PartTool, Tool: ts}
	}
	text := func(typ message.PartType, s string) message.Part { return message.Part{Type: typ, Text: s} }
	file := func(f *message.FileState) message.Part { return message.Part{Type: message.PartFile, File: f} }
	return []message.Entry{
		{Message: message.Message{Role: message.RoleUser}, Parts: []message.Part{text(message.PartText, "fix the failing test, please")}},
		{Message: message.Message{Role: message.RoleUser}, Parts: []message.Part{text(message.PartText, "")}},
		{Message: message.Message{Role: message.RoleUser}, Parts: []message.Part{text(message.PartText, "look"),
			file(&message.FileState{Kind: message.AttachFile, Path: "a.go", Content: "package a\n"}),
			file(&message.FileState{Kind: message.AttachImage, Path: "s.png", Width: 10, Height: 10}),
			file(&message.FileState{Kind: message.AttachImage, Path: "t.png", Error: "too large"}),
			file(&message.FileState{Kind: message.AttachCommand, Path: "make", Content: "ok", IsError: true})}},
		{Message: message.Message{Role: message.RoleUser}, Parts: []message.Part{file(&message.FileState{Kind: message.AttachDir, Path: "x/", Content: "a\nb\n"})}},
		{Message: message.Message{Role: message.RoleUser, Synthetic: true}, Parts: []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{}}}},
		{Message: message.Message{Role: message.RoleAssistant, Summary: true}, Parts: []message.Part{text(message.PartText, "## Goal\nFix it.")}},
		{Message: message.Message{Role: message.RoleAssistant}, Parts: []message.Part{text(message.PartReasoning, "think first, at length"),
			text(message.PartText, "Running the tests."), tool("c1", message.ToolCompleted, "FAIL x_test.go:12", false),
			tool("c2", message.ToolCompleted, "", false), tool("c3", message.ToolError, "", false), tool("c4", message.ToolRunning, "part", false),
			tool("c5", message.ToolCompleted, "a long output that was pruned", true), tool("", message.ToolCompleted, "no id", false),
			text(message.PartText, "Fixed.")}},
		{Message: message.Message{Role: message.RoleAssistant}, Parts: []message.Part{text(message.PartReasoning, "only thinking")}},
		{Message: message.Message{Role: message.RoleAssistant, Error: "boom"}},
	}
}

// An entry's cost taken apart and priced again is what EstimateEntries
// says, for the plain estimator and any calibration, with or without
// reasoning.
func TestEntryCostPricesAsEstimateEntries(t *testing.T) {
	for i, e := range costEntries() {
		c := CostOf(&e, Chars{})
		if got, want := c.Price(1, false), EstimateEntries([]message.Entry{e}, Chars{}); got != want {
			t.Errorf("entry %d: plain %d, EstimateEntries %d", i, got, want)
		}
		for _, ratio := range []float64{0, 0.5, 0.73, 1, 1.37, 2} {
			for _, rt := range []bool{false, true} {
				want := estimateEntries([]message.Entry{e}, Calibrated{Estimator: Chars{}, Ratio: ratio}, rt)
				if got := c.Price(ratio, rt); got != want {
					t.Errorf("entry %d, ratio %v, roundtrip %v: %d, estimateEntries %d", i, ratio, rt, got, want)
				}
			}
		}
	}
	if c := CostOf(&costEntries()[6], Chars{}); c.Price(1.37, true) == c.Price(1.37, false) || c.Price(1.37, false) == c.Price(1, false) {
		t.Errorf("the reasoning or the ratio is not priced: %+v", c)
	}
}
