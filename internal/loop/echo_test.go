package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// echoHistory is n Gemini-style steps: a user message, then an assistant
// message whose call carries a thought signature and whose step carries
// OpenRouter-style reasoning_details.
func echoHistory(n int) []message.Entry {
	var h []message.Entry
	for i := range n {
		h = append(h, message.Entry{Message: message.Message{ID: fmt.Sprintf("u%03d", i), Role: message.RoleUser},
			Parts: []message.Part{{Type: message.PartText, Text: fmt.Sprintf("question %d", i)}}},
			message.Entry{Message: message.Message{ID: fmt.Sprintf("a%03d", i), Role: message.RoleAssistant},
				Parts: []message.Part{{Type: message.PartText, Text: "reading"},
					{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("c%d", i), Name: "read", Status: message.ToolCompleted,
						Input: `{}`, Output: "contents", Echo: json.RawMessage(fmt.Sprintf(`{"extra_content":{"google":{"thought_signature":"sig-%d"}}}`, i))}},
					{Type: message.PartStepFinish, Step: &message.StepState{Echo: json.RawMessage(fmt.Sprintf(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"enc-%d"}]}`, i))}}}})
	}
	return h
}

// body is a conversation's messages as the request sends them.
func body(t *testing.T, c *requestCache, h []message.Entry) string {
	t.Helper()
	cv := c.conversation(nil, h, historyMark{}, ConvertOptions{}, tokens.NewCalculator(tokens.Options{Window: 100000}, tokens.Chars{}), tokens.Chars{})
	var b strings.Builder
	for i, enc := range cv.enc {
		if enc == nil && cv.msgs[i].Role == "assistant" {
			t.Fatalf("assistant message %d not encoded here: the provider would drop its echo", i)
		}
		b.Write(enc)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestEchoSurvivesPruneAndCache: each call goes with its signature and
// each step with its reasoning_details, from a kept conversion or a new
// one; a pruned output keeps its call's signature.
func TestEchoSurvivesPruneAndCache(t *testing.T) {
	h := echoHistory(5)
	var c requestCache
	check := func(what, got string) {
		t.Helper()
		for i := range 5 {
			call := fmt.Sprintf(`{"id":"c%d","type":"function","function":{"name":"read","arguments":"{}"},"extra_content":{"google":{"thought_signature":"sig-%d"}}}`, i, i)
			if !strings.Contains(got, call) {
				t.Errorf("%s: call c%d without its signature:\n%s", what, i, got)
			}
			if !strings.Contains(got, fmt.Sprintf(`"reasoning_details":[{"type":"reasoning.encrypted","data":"enc-%d"}]}`, i)) {
				t.Errorf("%s: step %d without its reasoning_details", what, i)
			}
		}
	}
	first := body(t, &c, h)
	check("first", first)
	if again := body(t, &c, h); again != first {
		t.Errorf("kept conversions differ:\n%s\n%s", again, first)
	}
	st := *h[3].Parts[1].Tool
	st.CompactedAt = time.Now() // pruned, as markCompacted does
	h[3].Parts[1].Tool = &st
	pruned := body(t, &c, h)
	check("pruned", pruned)
	if !strings.Contains(pruned, message.ClearedOutput) {
		t.Error("the pruned output is sent")
	}
	// An entry without an id is converted fresh every time.
	h[5].Message.ID = ""
	check("fresh", body(t, &c, h))
	// Another cache, converting from scratch, sends the same bytes.
	var other requestCache
	if got := body(t, &other, h); got != body(t, &c, h) {
		t.Errorf("a new cache sends\n%s\nthe kept one\n%s", got, body(t, &c, h))
	}
}

// TestSummarisedRangeDropsCallsAndSignaturesTogether: what a compaction
// summarised is sent as the summary alone: no call and no signature of
// it; the calls after it keep theirs.
func TestSummarisedRangeDropsCallsAndSignaturesTogether(t *testing.T) {
	h := echoHistory(4)
	summary := message.Entry{Message: message.Message{ID: "s", Role: message.RoleAssistant, Summary: true},
		Parts: []message.Part{{Type: message.PartText, Text: "Read files 0 and 1."}}}
	marker := message.Entry{Message: message.Message{ID: "m", Role: message.RoleUser},
		Parts: []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{SummaryID: "s", Outcome: "summary"}}}}
	h = append(h[:4:4], append([]message.Entry{marker, summary}, h[4:]...)...)
	var c requestCache
	got := body(t, &c, h)
	for i := range 4 {
		hasCall := strings.Contains(got, fmt.Sprintf(`"id":"c%d"`, i))
		hasSig := strings.Contains(got, fmt.Sprintf(`sig-%d"`, i))
		if hasCall != hasSig || hasCall != (i >= 2) {
			t.Errorf("step %d: call sent %v, signature sent %v, want both %v", i, hasCall, hasSig, i >= 2)
		}
	}
	if !bytes.Contains([]byte(got), []byte("Read files 0 and 1.")) {
		t.Errorf("no summary sent:\n%s", got)
	}
}

// TestRecordedReasoningGoesBackPerCatalog replays recorded streams with
// reasoning_content and parallel calls (DeepSeek V4, GLM 4.6): the next
// request sends the reasoning back as reasoning_content to a model whose
// catalog row says its reasoning travels in it, and not to one whose row
// does not; no vendor field is invented either way.
func TestRecordedReasoningGoesBackPerCatalog(t *testing.T) {
	root := fixturesAbove(t)
	for _, tt := range []struct {
		file, model string
		back        bool
	}{
		{"crush/deepseek-v4__parallel_tool_calls__1.sse", "deepseek-v4-flash", true},
		{"crush/deepseek-v4__parallel_tool_calls__1.sse", "gpt-4.1", false},
		{"crush/zai-glm4.6__parallel_tool_calls__1.sse", "glm-4.7", true},
		{"crush/zai-glm4.6__parallel_tool_calls__1.sse", "glm-4.6", false}, // its row names no field
	} {
		t.Run(tt.model, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			h := newHarnessWith(t, func(_ *Options, c *config.Config) { c.Model = tt.model }, pt.RawSSE(string(raw)), pt.Text("ok"))
			if res := h.turn("go"); res.Err != nil {
				t.Fatalf("turn: %v", res.Err)
			}
			var reasoning string
			for _, e := range h.r.History() {
				if e.Message.Role == message.RoleAssistant {
					reasoning += joinText(e.Parts, message.PartReasoning)
				}
			}
			if reasoning == "" {
				t.Fatal("the recording's reasoning was not kept")
			}
			body := string(h.srv.Requests()[1].Body)
			for _, m := range h.request(1) {
				if m.Role != openai.ChatMessageRoleAssistant {
					continue
				}
				if want := map[bool]string{true: reasoning}[tt.back]; m.ReasoningContent != want {
					t.Errorf("reasoning_content %q, want %q", m.ReasoningContent, want)
				}
			}
			for _, f := range []string{"reasoning_details", "extra_content", `"reasoning"`} {
				if strings.Contains(body, f) {
					t.Errorf("the request carries %s", f)
				}
			}
		})
	}
}

// fixturesAbove finds shared/fixtures/providers in a directory above the
// working one (beside the main checkout, or above a worktree).
func fixturesAbove(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f := filepath.Join(dir, "shared", "fixtures", "providers")
		if _, err := os.Stat(f); err == nil {
			return f
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/fixtures/providers not found above the working directory")
		}
		dir = parent
	}
}

// TestUnsignedCallsGetTheStandInOnlyForGemini: a call stored without an
// echo gets Google's stand-in when the model is Gemini on Google's
// endpoint, and nothing for any other; a switch between the two re-makes
// the kept conversions; a call with its own signature keeps it.
func TestUnsignedCallsGetTheStandInOnlyForGemini(t *testing.T) {
	h := echoHistory(3)
	h[1].Parts[1].Tool.Echo = nil // c0: unsigned
	var c requestCache
	conv := func(model string) string {
		t.Helper()
		opt := ConvertOptions{UnsignedCall: provider.UnsignedCallEcho(model)}
		cv := c.conversation(nil, h, historyMark{}, opt, tokens.NewCalculator(tokens.Options{Window: 100000}, tokens.Chars{}), tokens.Chars{})
		return string(bytes.Join(cv.enc, []byte("\n")))
	}
	stand := `{"id":"c0","type":"function","function":{"name":"read","arguments":"{}"},"extra_content":{"google":{"thought_signature":"skip_thought_signature_validator"}}}`
	for _, step := range []struct {
		model string
		want  bool
	}{{"gpt-4.1", false}, {"gemini-3-pro-preview", true}, {"google/gemini-3.1-pro-preview", false}, {"gemini-3-flash-preview", true}} {
		got := conv(step.model)
		if strings.Contains(got, stand) != step.want {
			t.Errorf("%s: stand-in sent %v, want %v:\n%s", step.model, !step.want, step.want, got)
		}
		if !strings.Contains(got, `"thought_signature":"sig-1"`) || !strings.Contains(got, `"thought_signature":"sig-2"`) {
			t.Errorf("%s: a call lost its own signature", step.model)
		}
	}
}
