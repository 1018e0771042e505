package main

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EReadImageTool: through the real binary, the model's read of a
// PNG reaches a vision model as an image part (the file's bytes as a data
// URL) in a user message right after the tool result, and a model
// without vision as a description.
func TestE2EReadImageTool(t *testing.T) {
	for _, model := range []string{"house-vl", "house-text"} {
		t.Run(model, func(t *testing.T) {
			e, data := imagesEnv(t, pt.ToolCall("c1", "read", `{"path":"x.png"}`), pt.Text("a tiny black square"))
			res := e.run("", "run", "--model", model, "what is in x.png?")
			if res.code != 0 {
				t.Fatalf("run: exit %d: %s", res.code, res.stderr)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			msgs := reqs[1].Chat.Messages
			last := msgs[len(msgs)-1]
			if len(msgs) < 2 || msgs[len(msgs)-2].Role != openai.ChatMessageRoleTool || last.Role != openai.ChatMessageRoleUser {
				t.Fatalf("the request ends with %s %.200q, not the tool result and the images", last.Role, last.Content)
			}
			var urls, texts []string
			for _, p := range last.MultiContent {
				if p.Type == openai.ChatMessagePartTypeImageURL {
					urls = append(urls, p.ImageURL.URL)
				} else {
					texts = append(texts, p.Text)
				}
			}
			text := strings.Join(texts, "\n")
			if !strings.Contains(text, "c1 (read)") {
				t.Errorf("images message text: %q", text)
			}
			if model == "house-vl" {
				if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data); len(urls) != 1 || urls[0] != want {
					t.Errorf("image parts %.80q, want the PNG", urls)
				}
				return
			}
			if len(urls) != 0 || !strings.Contains(text, "[image: x.png, image/png, ") || !strings.Contains(text, "3×2") {
				t.Errorf("without vision: %d image parts, text %q", len(urls), text)
			}
		})
	}
}
