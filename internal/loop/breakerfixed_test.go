package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestBreakerBlamesTheFixedPrompt (issue 27 item 8): when the system
// prompt (here a large AGENTS.md) and the tool schemas alone do not fit
// the model, the turn's error says so and names their sizes, instead of
// blaming "the conversation" that no compaction could shrink further.
func TestBreakerBlamesTheFixedPrompt(t *testing.T) {
	overflow := pt.HTTPError(400, nil, `{"error":{"message":"This model's maximum context length is 6000 tokens","code":"context_length_exceeded"}}`)
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "tiny"
		c.Models["tiny"] = config.ModelInfo{ContextWindow: 6000, MaxOutput: 1000}
		rules := strings.Repeat("Always write the changelog entry in the imperative mood and wrap at 72 columns. ", 380)
		if err := os.WriteFile(filepath.Join(o.Dir, "AGENTS.md"), []byte(rules), 0o644); err != nil {
			t.Fatal(err)
		}
	}, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow, overflow)
	res := h.turn("hi")
	if res.Err == nil {
		t.Fatal("the turn went through")
	}
	msg := res.Err.Error()
	t.Log(msg)
	if strings.Contains(msg, "the conversation still does not fit") || !strings.Contains(msg, "system prompt") ||
		!strings.Contains(msg, "tool schemas") || !strings.Contains(msg, "AGENTS.md") {
		t.Errorf("the error blames the wrong thing: %s", msg)
	}
}
