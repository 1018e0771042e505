package storage

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestEchoIsStoredVerbatim: the vendor fields kept with a tool part and
// a step-finish part (provider.EchoTable) come back from the database
// byte for byte, whatever their shape, and a pruned call keeps its own.
func TestEchoIsStoredVerbatim(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	callEcho := `{"extra_content":{"google":{"thought_signature":"Cu4BAY8+/=="}},"vendor_next":[1,"two",{"3":null}]}`
	stepEcho := `{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAA\u003cx\u003e","index":0}]}`
	tool := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool, Tool: &message.ToolState{
		CallID: "c1", Name: "read", Status: message.ToolCompleted, Input: "{}", Output: "out", Echo: json.RawMessage(callEcho)}}
	step := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartStepFinish,
		Step: &message.StepState{Echo: json.RawMessage(stepEcho)}}
	for _, p := range []*message.Part{tool, step} {
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MarkCompacted(ctx, []string{tool.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	parts, err := s.ListParts(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var gotCall, gotStep string
	for _, p := range parts {
		switch {
		case p.Tool != nil:
			gotCall = string(p.Tool.Echo)
			if p.Tool.CompactedAt.IsZero() {
				t.Error("the call was not pruned")
			}
		case p.Step != nil:
			gotStep = string(p.Step.Echo)
		}
	}
	if gotCall != callEcho {
		t.Errorf("call echo %s, want %s", gotCall, callEcho)
	}
	if gotStep != stepEcho {
		t.Errorf("step echo %s, want %s", gotStep, stepEcho)
	}
}
