package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// BenchmarkStepOverhead measures the loop's own work between the end of a
// stream and the next request, tools excluded, with 1,000 messages in the
// session: taking the queue, the compaction decision, converting the
// history and encoding the request.
func BenchmarkStepOverhead(b *testing.B) {
	h := newHarness(b)
	ctx := context.Background()
	// 500 turns: a user message and an assistant message with text and a
	// tool call with a 2 KB output; as in a real session, all but the
	// newest 40 outputs have been pruned.
	out := strings.Repeat("x", 2048)
	var hist []message.Entry
	for i := 0; i < 500; i++ {
		u := message.Message{SessionID: h.r.state.sess.ID, Role: message.RoleUser}
		h.store.CreateMessage(ctx, &u)
		up := message.Part{SessionID: u.SessionID, MessageID: u.ID, Type: message.PartText, Text: fmt.Sprintf("turn %d", i)}
		h.store.UpsertPart(ctx, &up)
		a := message.Message{SessionID: h.r.state.sess.ID, Role: message.RoleAssistant}
		h.store.CreateMessage(ctx, &a)
		parts := []message.Part{
			{SessionID: a.SessionID, MessageID: a.ID, Type: message.PartText, Text: "Let me look at that file."},
			{SessionID: a.SessionID, MessageID: a.ID, Type: message.PartTool, Tool: &message.ToolState{
				CallID: fmt.Sprintf("call_%d", i), Name: "read", Status: message.ToolCompleted, Input: `{"path":"x.go"}`, Output: out}},
		}
		if i < 460 {
			parts[1].Tool.CompactedAt = time.Now()
		}
		for j := range parts {
			h.store.UpsertPart(ctx, &parts[j])
		}
		hist = append(hist, message.Entry{Message: u, Parts: []message.Part{up}}, message.Entry{Message: a, Parts: parts})
	}
	h.r.state.history = hist
	b.ReportAllocs()
	b.Run("queue", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := h.r.inbox.inject(ctx, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decide+convert", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			h.r.mp.strategy.ShouldCompact(h.r.calcp.Load().Reading())
			h.r.stepper.buildRequest(context.Background())
		}
	})
	// Encoding is the provider's work, reported for scale: the messages
	// the request cache has encoded are taken as they are, the others
	// encoded (go-openai's message type re-encodes through a custom
	// marshaller), before the body is written from the pieces.
	b.Run("encode", func(b *testing.B) {
		req := h.r.stepper.buildRequest(context.Background())
		for i := 0; i < b.N; i++ {
			for j, m := range req.Messages {
				if req.Encoded[j] != nil {
					continue
				}
				if _, err := provider.EncodeMessage(m); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	// What encoding cost before the request cache: every message, every
	// step.
	b.Run("encode-all", func(b *testing.B) {
		req := h.r.stepper.buildRequest(context.Background())
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(req.Messages); err != nil {
				b.Fatal(err)
			}
		}
	})
}
