package tools

// Images a tool returns (read of an image file, an MCP tool's image
// content). A tool checks the bytes (attachments.Inspect: at most
// attachments.MaxImageBytes, PNG, JPEG, GIF or WebP by content) and puts
// them in Result.Images, at most MaxResultImages a result; its text
// output describes each. The loop stores them like attachments and the
// converter sends them to a model with vision; Registry.Run passes them
// through untouched (an image has no text to sanitise or cap).

import (
	"fmt"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// MaxResultImages bounds the images of one tool result: a tool that
// returns more has the rest described in its text, not sent.
const MaxResultImages = 4

// Image is an image a tool returned: its bytes, checked, and the name it
// is shown by.
type Image struct {
	Name string
	Data []byte
	Info attachments.Info
}

// NewImage checks data as an image named name and returns it with the
// line that describes it in the tool's text ("[image: name, image/png,
// 2.0 KB, 640×480]").
func NewImage(name string, data []byte) (Image, string, error) {
	info, err := attachments.Inspect(data)
	if err != nil {
		return Image{}, "", err
	}
	if info.Width == 0 && info.MIME != "image/webp" {
		// A broken image would have every later request refused.
		return Image{}, "", fmt.Errorf("its header says %s but it does not decode as one", info.MIME)
	}
	img := Image{Name: name, Data: data, Info: info}
	return img, tokens.ImageDescription(img.state(), ""), nil
}

// state is the image as a file part's state, without its place in the
// store.
func (i Image) state() *message.FileState {
	return &message.FileState{Kind: message.AttachImage, Path: i.Name, MIME: i.Info.MIME,
		SizeBytes: i.Info.SizeBytes, Width: i.Info.Width, Height: i.Info.Height}
}
