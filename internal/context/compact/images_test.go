package compact

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// TestTranscriptNamesImages: the summary's transcript carries an image's
// placeholder (name, size) and never its bytes or its store path.
func TestTranscriptNamesImages(t *testing.T) {
	e := message.Entry{Message: message.Message{ID: "01", Role: message.RoleUser}, Parts: []message.Part{
		{Type: message.PartText, Text: "what is wrong here?"},
		{Type: message.PartFile, File: &message.FileState{Kind: message.AttachImage, Path: "shot.png",
			Store: "ab/abcdef.png", MIME: "image/png", SizeBytes: 2048, Width: 800, Height: 600}},
		{Type: message.PartFile, File: &message.FileState{Kind: message.AttachImage, Path: "logo.webp",
			Store: "cd/cdef.webp", MIME: "image/webp", SizeBytes: 99}},
	}}
	blocks := Transcript([]message.Entry{e}, tokens.Chars{}, 0)
	want := "User: what is wrong here?\n[image: shot.png, 800×600, sent earlier]\n[image: logo.webp, sent earlier]"
	if len(blocks) != 1 || blocks[0] != want {
		t.Errorf("transcript %q\n want %q", blocks, want)
	}
	if s := strings.Join(blocks, ""); strings.Contains(s, "base64") || strings.Contains(s, "abcdef") {
		t.Errorf("transcript carries the image: %q", s)
	}
}
