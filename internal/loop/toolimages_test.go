package loop

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// testPNG is a w×h PNG.
func testPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imagesAfterTools returns the user messages of a request that follow
// tool results: where a step's tool images are sent.
func imagesAfterTools(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == openai.ChatMessageRoleUser && msgs[i-1].Role == openai.ChatMessageRoleTool {
			out = append(out, msgs[i])
		}
	}
	return out
}

// TestReadPNGReachesVisionModel: read of a PNG (named .txt: the content
// decides) gives a vision model the image as an image part, in a user
// message right after the step's tool results, with the file's bytes as
// a data URL; the tool message says what the image is; the image is kept
// in the database with the tool part.
func TestReadPNGReachesVisionModel(t *testing.T) {
	h := newHarness(t,
		pt.ToolCall("c1", "read", `{"path":"shot.txt"}`),
		pt.Text("a red dot"),
	)
	data := testPNG(t, 3, 2)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("look at shot.txt"); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(1)
	assertAnswered(t, msgs)
	var tool string
	for _, m := range msgs {
		if m.ToolCallID == "c1" {
			tool = m.Content
		}
	}
	if !strings.Contains(tool, "image/png") || !strings.Contains(tool, "3×2") {
		t.Errorf("tool result %q does not describe the image", tool)
	}
	imgs := imagesAfterTools(msgs)
	if len(imgs) != 1 {
		t.Fatalf("%d image messages after the tool results, want 1", len(imgs))
	}
	want := "url:data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	if got := describe(imgs[0]); !strings.Contains(got, want) || !strings.Contains(got, "c1") {
		t.Errorf("image message: %.200s", got)
	}
	// Kept in the database with the tool part.
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	var stored []*message.FileState
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Tool != nil && p.Tool.CallID == "c1" {
				stored = p.Tool.Images
			}
		}
	}
	if len(stored) != 1 || stored[0].MIME != "image/png" || stored[0].Width != 3 || stored[0].Store == "" {
		t.Fatalf("stored images: %+v", stored)
	}
}

// TestReadPNGDescribedToTextModel: a model without vision gets no image
// part: the image is described in text (name, type, size, dimensions).
func TestReadPNGDescribedToTextModel(t *testing.T) {
	h := newHarnessWith(t, func(_ *Options, c *config.Config) { c.Model = "deepseek-chat" },
		pt.ToolCall("c1", "read", `{"path":"shot.png"}`),
		pt.Text("I cannot see it"),
	)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), testPNG(t, 3, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("look at shot.png"); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(1)
	var all []string
	for _, m := range msgs {
		all = append(all, describe(m))
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeImageURL {
				t.Fatalf("an image part went to a model without vision")
			}
		}
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"shot.png", "image/png", "3×2", "does not take images"} {
		if !strings.Contains(text, want) {
			t.Errorf("request does not say %q:\n%s", want, text)
		}
	}
}

// TestMCPImageReachesVisionModel: an MCP tool's image content is an image
// part of the next request.
func TestMCPImageReachesVisionModel(t *testing.T) {
	srv := mcptest.HTTP(t, "")
	servers := mcp.Start(context.Background(), map[string]config.MCPServer{"t": {URL: srv.URL}}, mcp.Options{Dir: t.TempDir()})
	defer servers.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := servers.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Extra = servers },
		pt.ToolCall("c1", "t__image", `{}`),
		pt.Text("seen"),
	)
	if res := h.turn("take a screenshot"); res.Err != nil {
		t.Fatal(res.Err)
	}
	imgs := imagesAfterTools(h.request(1))
	if len(imgs) != 1 || !strings.Contains(describe(imgs[0]), "url:data:image/png;base64,") {
		t.Fatalf("image messages: %+v", imgs)
	}
}

// TestToolImagesOldAndPruned: tool images count against WholeImages with
// the user's (the newest sent whole, older ones a placeholder); a pruned
// tool output sends no image at all; an image kept verbatim by a
// compaction (before its summary) is a placeholder; the calculator counts
// each image sent or described as tokens.ImageTokens.
func TestToolImagesOldAndPruned(t *testing.T) {
	url := func(f *message.FileState) (string, error) { return "data:" + f.MIME + ";base64," + f.Path, nil }
	toolEntry := func(id, call string, names ...string) message.Entry {
		st := &message.ToolState{CallID: call, Name: "read", Status: message.ToolCompleted, Input: `{}`, Output: "an image"}
		for _, n := range names {
			st.Images = append(st.Images, &message.FileState{Kind: message.AttachImage, Path: n, Store: "ab/" + n,
				MIME: "image/png", SizeBytes: 2048, Width: 3, Height: 2})
		}
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleAssistant},
			Parts: []message.Part{{Type: message.PartTool, Tool: st}}}
	}
	hist := []message.Entry{imageEntry("01", "look", "u.png"), toolEntry("02", "c1", "a.png", "b.png"),
		toolEntry("03", "c2", "c.png", "d.png", "e.png")}
	msgs := ToModelMessages(hist, ConvertOptions{ImageURL: url})
	var got []string
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleUser {
			got = append(got, describe(m))
		}
	}
	want := []string{
		"text:look | text:[image: u.png, 640×480, sent earlier]",
		"text:Images from tool call c1 (read): | text:[image: a.png, image/png, 2.0 KB, 3×2, sent earlier] | url:data:image/png;base64,b.png",
		"text:Images from tool call c2 (read): | url:data:image/png;base64,c.png | url:data:image/png;base64,d.png | url:data:image/png;base64,e.png",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("user messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := tokens.EstimateEntries(hist[1:2], tokens.Chars{}) - tokens.EstimateEntries([]message.Entry{toolEntry("02", "c1")}, tokens.Chars{}); n < 2*tokens.ImageTokens {
		t.Errorf("two tool images cost %d tokens, want at least %d", n, 2*tokens.ImageTokens)
	}

	// Pruned: the images go with the output.
	hist[2].Parts[0].Tool.CompactedAt = time.Now()
	for _, m := range ToModelMessages(hist, ConvertOptions{ImageURL: url}) {
		if strings.Contains(describe(m), "c.png") {
			t.Errorf("a pruned output's image is still sent: %s", describe(m))
		}
	}
	bare := toolEntry("03", "c2")
	bare.Parts[0].Tool.CompactedAt = time.Now()
	if a, b := tokens.EstimateEntries(hist[2:3], tokens.Chars{}), tokens.EstimateEntries([]message.Entry{bare}, tokens.Chars{}); a != b {
		t.Errorf("a pruned output's images still cost %d tokens", a-b)
	}
}

// TestToolImagesAfterCompaction: after a compaction, a tool image the
// summary replaced is not sent, and one its compaction kept verbatim is
// a placeholder.
func TestToolImagesAfterCompaction(t *testing.T) {
	url := func(f *message.FileState) (string, error) { return "data:" + f.MIME + ";base64," + f.Path, nil }
	st := &message.ToolState{CallID: "c1", Name: "read", Status: message.ToolCompleted, Input: `{}`, Output: "an image",
		Images: []*message.FileState{{Kind: message.AttachImage, Path: "kept.png", Store: "ab/kept.png", MIME: "image/png", SizeBytes: 10}}}
	summary := message.Entry{Message: message.Message{ID: "05", Role: message.RoleUser, Summary: true},
		Parts: []message.Part{{Type: message.PartText, Text: "we looked at a picture"}}}
	// Visible order: summary, then the tail its compaction kept.
	sent := []message.Entry{summary,
		{Message: message.Message{ID: "02", Role: message.RoleAssistant}, Parts: []message.Part{{Type: message.PartTool, Tool: st}}},
		{Message: message.Message{ID: "06", Role: message.RoleUser}, Parts: []message.Part{{Type: message.PartText, Text: "go on"}}}}
	var all []string
	for _, m := range ToModelMessages(sent, ConvertOptions{ImageURL: url}) {
		all = append(all, describe(m))
	}
	text := strings.Join(all, "\n")
	if strings.Contains(text, "url:") || !strings.Contains(text, "[image: kept.png, image/png, 10 bytes, sent earlier]") {
		t.Errorf("after a compaction:\n%s", text)
	}
}

// TestVisionRefusedFallsBackToText: a model nothing describes is sent the
// tool's image; its server refuses it with a 400; the user is told once,
// and the same step goes again with the image described in text, as do
// the session's later requests to that model.
func TestVisionRefusedFallsBackToText(t *testing.T) {
	h := newHarnessWith(t, func(_ *Options, c *config.Config) { c.Model = "house-model-without-a-row" },
		pt.ToolCall("c1", "read", `{"path":"shot.png"}`),
		pt.HTTPError(400, nil, `{"error":{"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"invalid_request_error"}}`),
		pt.Text("described"),
		pt.Text("still described"),
	)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), testPNG(t, 3, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("look at shot.png"); res.Err != nil {
		t.Fatalf("turn: %v", res.Err)
	}
	if res := h.turn("and again"); res.Err != nil {
		t.Fatalf("second turn: %v", res.Err)
	}
	hasPart := func(n int) bool {
		for _, m := range h.request(n) {
			for _, p := range m.MultiContent {
				if p.Type == openai.ChatMessagePartTypeImageURL {
					return true
				}
			}
		}
		return false
	}
	if !hasPart(1) {
		t.Fatal("the refused request carried no image part")
	}
	for _, n := range []int{2, 3} {
		if hasPart(n) {
			t.Errorf("request %d still carries the image", n)
		}
		var all []string
		for _, m := range h.request(n) {
			all = append(all, describe(m))
		}
		if text := strings.Join(all, "\n"); !strings.Contains(text, "[image: shot.png, image/png") {
			t.Errorf("request %d does not describe the image:\n%s", n, text)
		}
	}
	var notes []string
	for _, ev := range h.eventsOf(message.EventNote) {
		if strings.Contains(ev.Note, "images") {
			notes = append(notes, ev.Note)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "house-model-without-a-row") || !strings.Contains(notes[0], "vision") {
		t.Errorf("notes: %q", notes)
	}
}
