package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// seedSessions fills a database with n sessions of msgs messages each,
// every assistant message with a tool call holding outputBytes of output.
func seedSessions(b *testing.B, data, dir string, n, msgs, outputBytes int) {
	b.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	output := strings.Repeat("x", outputBytes)
	for i := range n {
		s := &message.Session{Title: fmt.Sprintf("session %d", i), Model: "gpt-4.1", Dir: dir}
		if err := st.CreateSession(ctx, s); err != nil {
			b.Fatal(err)
		}
		for j := range msgs {
			role := message.RoleUser
			if j%2 == 1 {
				role = message.RoleAssistant
			}
			m := &message.Message{SessionID: s.ID, Role: role, Model: "gpt-4.1"}
			if err := st.CreateMessage(ctx, m); err != nil {
				b.Fatal(err)
			}
			parts := []message.Part{{Type: message.PartText, Text: "some words of the conversation"}}
			if role == message.RoleAssistant {
				parts = append(parts,
					message.Part{Type: message.PartTool, Tool: &message.ToolState{CallID: "c", Name: "bash",
						Status: message.ToolCompleted, Input: `{"command":"ls"}`, Output: output}},
					message.Part{Type: message.PartStepFinish, Step: &message.StepState{
						Usage: message.Usage{Input: 1000 * int64(j), Output: 100}, FinishReason: "tool_calls"}})
			}
			for _, p := range parts {
				p.SessionID, p.MessageID = s.ID, m.ID
				if err := st.UpsertPart(ctx, &p); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkSessionRows lists 1,000 sessions (20 messages and 10 tool
// outputs of 1 KB each) as `agent sessions --all` does: one row each, the
// context figure for the newest contextRows.
func BenchmarkSessionRows(b *testing.B) {
	data, dir := b.TempDir(), b.TempDir()
	seedSessions(b, data, dir, 1000, 20, 1024)
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", DataDir: data}, dir, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	a := &app{cfg: cfg, dir: dir}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		rows, err := a.sessionRows(ctx, "")
		if err != nil || len(rows) != 1000 || rows[0].Context == nil || rows[0].Messages != 20 {
			b.Fatalf("rows %d, err %v", len(rows), err)
		}
	}
}
