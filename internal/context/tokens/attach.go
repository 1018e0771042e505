package tokens

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

// ImageTokens is what an image is counted as, whether sent whole or as its
// placeholder: providers price an image by its size in tiles (OpenAI: 85
// tokens plus 170 per 512-pixel tile of the scaled image, about 765 for a
// 1024×1024 screenshot; Anthropic: width×height/750, about 1,600 at most
// after their scaling), so a flat 1,000 is near a typical screenshot and an
// upper bound for a placeholder; usage calibrates the rest.
const ImageTokens = 1000

// ImagePlaceholder is what the model is given instead of an image it is
// not sent whole (an older one, one in a summarised conversation, or for a
// model without vision): its name and, when known, its size.
func ImagePlaceholder(f *message.FileState, why string) string {
	s := "[image: " + f.Path
	if f.Width > 0 && f.Height > 0 {
		s += fmt.Sprintf(", %d×%d", f.Width, f.Height)
	}
	if why != "" {
		s += ", " + why
	}
	return s + "]"
}

// IsImage reports whether p is an image attachment.
func IsImage(p *message.Part) bool {
	return p.Type == message.PartFile && p.File != nil && p.File.Kind == message.AttachImage
}

// AttachmentText is what the model is given for an attachment of a user
// message (an @mention, a !command or the agent's environment note), after the message's text; the
// converter sends exactly this and the calculator prices it. An image has
// none: it is a content part of its own (ImageTokens).
func AttachmentText(f *message.FileState) string {
	switch {
	case f == nil, f.Kind == message.AttachImage && f.Error == "":
		return ""
	case f.Error != "":
		return "[@" + f.Path + " could not be attached: " + f.Error + "]"
	case f.Kind == message.AttachCommand:
		status := "output"
		if f.IsError {
			status = "output (it failed)"
		}
		return "The user ran `" + f.Path + "` in the session's directory; its " + status + ":\n" + f.Content
	case f.Kind == message.AttachDir:
		return "Listing of @" + f.Path + " (attached by the user):\n" + f.Content
	case f.Kind == message.AttachEnv:
		return EnvText(f.Content)
	}
	return "Contents of @" + f.Path + " (attached by the user; line numbers are not part of the file):\n" + f.Content
}

// EnvText is the block a turn's user message carries when the git status
// changed since the model last saw it (message.AttachEnv): the agent's
// note, not the user's words.
func EnvText(gitStatus string) string {
	return "<env>\nGit status at the start of this turn (changed since you were last told it):\n" + gitStatus + "\n</env>"
}

// UserContent is the text of a user message as sent: its text parts, then
// its attachments, separated by blank lines. Its images are not in it; the
// converter sends them as parts after it.
func UserContent(parts []message.Part) string {
	var b strings.Builder
	for i := range parts {
		p := &parts[i]
		var s string
		switch {
		case p.Type == message.PartText:
			s = p.Text
		case p.Type == message.PartFile:
			s = AttachmentText(p.File)
		}
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			if p.Type == message.PartFile {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

func hasAttachments(parts []message.Part) bool {
	for i := range parts {
		if parts[i].Type == message.PartFile && parts[i].File != nil {
			return true
		}
	}
	return false
}

// ImagesCost is what the images of a user message are counted as.
func ImagesCost(parts []message.Part) int64 {
	var n int64
	for i := range parts {
		if IsImage(&parts[i]) && parts[i].File.Error == "" {
			n += ImageTokens
		}
	}
	return n
}
