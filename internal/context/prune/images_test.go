package prune

import (
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// TestPassCountsToolImages: a tool output's images are what pruning it
// saves too (tokens.ImageTokens each, as the calculator counts them), so
// an old screenshot with a short caption is cleared like a long output.
func TestPassCountsToolImages(t *testing.T) {
	h := (&history{}).user("look").tool("shot", 5)
	h.entries[1].Parts[1].Tool.Images = []*message.FileState{{Kind: message.AttachImage, Path: "s.png", Store: "ab/s.png", MIME: "image/png"}}
	h.user("more").tool("new", 10).user("again").user("and again")
	res := Pass(h.entries, tokens.Chars{}, Options{Protect: 100, Minimum: 500, ProtectTurns: 1})
	if len(res.PartIDs) != 1 || res.PartIDs[0] != "shot" || res.TokensSaved < tokens.ImageTokens-cleared {
		t.Fatalf("pass: %+v", res)
	}
}
