package tokens

// Images from tools (message.ToolState.Images). The converter sends a
// step's tool images in one user message after its tool results: a
// header line per call with images (ToolImagesHeader), then each image
// whole or described (ImageDescription). This file prices exactly that:
// ImageTokens an image, whole or described, the headers as text, and one
// message's overhead for the step.

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
)

// ToolImages returns the images of a tool call that are sent: none for a
// pruned output (they go with it) or a call that did not complete.
func ToolImages(t *message.ToolState) []*message.FileState {
	if t == nil || len(t.Images) == 0 || !t.CompactedAt.IsZero() || ToolResult(t) != t.Output {
		return nil
	}
	return t.Images
}

// ToolImagesHeader introduces the images of one tool call.
func ToolImagesHeader(t *message.ToolState) string {
	return fmt.Sprintf("Images from tool call %s (%s):", t.CallID, t.Name)
}

// ImageDescription is a tool image in text, for a model that is not sent
// it whole: its name, type, size and dimensions, and why.
func ImageDescription(f *message.FileState, why string) string {
	s := []string{f.Path}
	if f.MIME != "" {
		s = append(s, f.MIME)
	}
	if f.SizeBytes > 0 {
		s = append(s, truncate.FormatBytes(f.SizeBytes))
	}
	if f.Width > 0 && f.Height > 0 {
		s = append(s, fmt.Sprintf("%d×%d", f.Width, f.Height))
	}
	if f.Error != "" {
		s = append(s, "not stored: "+f.Error)
	} else if why != "" {
		s = append(s, why)
	}
	return "[image: " + strings.Join(s, ", ") + "]"
}

// toolImagesCost counts what a step's tool images are sent as: count gets
// each header, and the result is the tokens no estimator counts.
func toolImagesCost(parts []message.Part, count func(string, bool)) int64 {
	var fixed int64
	for i := range parts {
		p := &parts[i]
		if p.Type != message.PartTool || p.Tool == nil || p.Tool.CallID == "" {
			continue
		}
		if imgs := ToolImages(p.Tool); len(imgs) > 0 {
			if fixed == 0 {
				fixed = TokensPerMessage
			}
			count(ToolImagesHeader(p.Tool), false)
			fixed += int64(len(imgs)) * ImageTokens
		}
	}
	return fixed
}
