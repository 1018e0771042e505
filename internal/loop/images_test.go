package loop

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

func imageEntry(id, text string, names ...string) message.Entry {
	e := message.Entry{Message: message.Message{ID: id, Role: message.RoleUser},
		Parts: []message.Part{{Type: message.PartText, Text: text}}}
	for _, n := range names {
		e.Parts = append(e.Parts, message.Part{Type: message.PartFile, File: &message.FileState{
			Kind: message.AttachImage, Path: n, Store: "ab/ab" + n, MIME: "image/png", SizeBytes: 10, Width: 640, Height: 480}})
	}
	return e
}

// describe renders a user message's content parts: "text:…" or "url:…".
func describe(m openai.ChatCompletionMessage) string {
	if m.MultiContent == nil {
		return "content:" + m.Content
	}
	var got []string
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeImageURL {
			got = append(got, "url:"+p.ImageURL.URL)
		} else {
			got = append(got, "text:"+p.Text)
		}
	}
	return strings.Join(got, " | ")
}

// TestImagesConvert: a user message's images follow its text as image_url
// parts; only the newest WholeImages are sent whole, older ones (and all,
// for a model without vision) become a placeholder with their name and
// size; an image that cannot be read says so.
func TestImagesConvert(t *testing.T) {
	hist := []message.Entry{imageEntry("01", "first", "a.png", "b.png")}
	for i := 0; i < WholeImages-1; i++ {
		hist = append(hist, imageEntry(fmt.Sprint("1", i), "", fmt.Sprintf("n%d.png", i)))
	}
	hist = append(hist, imageEntry("20", "plain"))
	url := func(f *message.FileState) (string, error) {
		if f.Path == "n0.png" {
			return "", errors.New("gone")
		}
		return "data:" + f.MIME + ";base64," + f.Path, nil
	}
	msgs := ToModelMessages(hist, ConvertOptions{ImageURL: url})
	want := []string{
		"text:first | text:[image: a.png, 640×480, sent earlier] | url:data:image/png;base64,b.png",
		"text:[image: n0.png, 640×480, could not be read: gone]",
		"url:data:image/png;base64,n1.png",
		"url:data:image/png;base64,n2.png",
		"content:plain",
	}
	for i, m := range msgs {
		if got := describe(m); i >= len(want) || got != want[i] {
			t.Errorf("message %d: %s", i, got)
		}
		if m.Content != "" && m.MultiContent != nil {
			t.Errorf("message %d has both content and parts", i)
		}
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	blind := ToModelMessages(hist[:1], ConvertOptions{})
	if got := describe(blind[0]); got != "text:first | text:[image: a.png, 640×480, not sent: the model does not take images] | text:[image: b.png, 640×480, not sent: the model does not take images]" {
		t.Errorf("without vision: %s", got)
	}
}

// TestImagesCounted: the calculator's estimate of a message with images is
// its text plus tokens.ImageTokens per image, and the text it counts holds
// no image bytes.
func TestImagesCounted(t *testing.T) {
	plain := tokens.EstimateEntries([]message.Entry{imageEntry("01", "look at these")}, tokens.Chars{})
	with := tokens.EstimateEntries([]message.Entry{imageEntry("01", "look at these", "a.png", "b.png")}, tokens.Chars{})
	if with-plain != 2*tokens.ImageTokens {
		t.Errorf("two images cost %d tokens, want %d", with-plain, 2*tokens.ImageTokens)
	}
	if got := tokens.UserContent(imageEntry("01", "look", "a.png").Parts); got != "look" {
		t.Errorf("user content %q, want the text alone", got)
	}
}

// TestUnknownModelsVisionIsTried: a model no catalog row describes may
// take images (config.ModelInfo.VisionUnknown): the session sends them
// rather than refusing up front; a catalog row without vision refuses.
func TestUnknownModelsVisionIsTried(t *testing.T) {
	for model, want := range map[string]bool{"house-model-without-a-row": true, "deepseek-chat": false, "gpt-4.1": true} {
		h := newHarnessWith(t, func(_ *Options, c *config.Config) { c.Model = model })
		if got := h.r.Vision(); got != want {
			t.Errorf("%s: Vision() = %v, want %v", model, got, want)
		}
		if got := h.r.stepper.convertOptions().ImageURL != nil; got != want {
			t.Errorf("%s: images sent whole = %v, want %v", model, got, want)
		}
	}
}
