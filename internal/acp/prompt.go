package acp

// prompt.go: a prompt's content blocks as the agent's user message. Text
// is sent as is; a resource link to a file inside the session's directory
// becomes an @mention (the loop attaches the file through the read tool,
// as for a mention typed in the chat), any other link is named by its
// URI; an embedded text resource (the editor's buffer, possibly unsaved)
// is quoted in the message under its URI; an image is stored as an
// attachment. Audio and binary resources are refused: the agent has no
// place for them.

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/message"
)

// maxPromptImages bounds the images of one prompt.
const maxPromptImages = 20

// promptInput is a prompt as the loop takes it.
type promptInput struct {
	text   string
	images []*message.FileState
}

func (s *session) readPrompt(blocks []sdk.ContentBlock) (promptInput, error) {
	var in promptInput
	var text []string
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text = append(text, b.Text.Text)
		case b.ResourceLink != nil:
			text = append(text, s.linkText(b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			text = append(text, fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.Uri, r.Text))
		case b.Resource != nil:
			return in, fmt.Errorf("prompt block %d: binary resources are not supported", i)
		case b.Image != nil:
			if len(in.images) >= maxPromptImages {
				return in, fmt.Errorf("prompt block %d: at most %d images a prompt", i, maxPromptImages)
			}
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return in, fmt.Errorf("prompt block %d: image data is not base64: %v", i, err)
			}
			name := fmt.Sprintf("image-%d%s", len(in.images)+1, imageExt(b.Image.MimeType))
			f, err := s.a.b.SaveImage(name, data)
			if err != nil {
				return in, fmt.Errorf("prompt block %d: %v", i, err)
			}
			in.images = append(in.images, f)
		case b.Audio != nil:
			return in, fmt.Errorf("prompt block %d: audio is not supported", i)
		default:
			return in, fmt.Errorf("prompt block %d: unknown content", i)
		}
	}
	in.text = strings.Join(text, "\n")
	if strings.TrimSpace(in.text) == "" && len(in.images) == 0 {
		return in, fmt.Errorf("empty prompt")
	}
	return in, nil
}

// linkText is how a resource link reads in the message: an @mention of a
// file inside the session's directory (its path relative, without white
// space, which a mention cannot hold), else the URI.
func (s *session) linkText(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	rel, err := filepath.Rel(s.dir, u.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsAny(rel, " \t\n") {
		return u.Path
	}
	return "@" + filepath.ToSlash(rel)
}

func imageExt(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	}
	return ""
}
