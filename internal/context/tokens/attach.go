package tokens

import (
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

// AttachmentText is what the model is given for an attachment of a user
// message (an @mention or a !command), after the message's text; the
// converter sends exactly this and the calculator prices it.
func AttachmentText(f *message.FileState) string {
	switch {
	case f == nil:
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
	}
	return "Contents of @" + f.Path + " (attached by the user; line numbers are not part of the file):\n" + f.Content
}

// UserContent is the text of a user message as sent: its text parts, then
// its attachments, separated by blank lines.
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

// attachmentsCost prices the attachments of a user message.
func attachmentsCost(parts []message.Part, est Estimator) int64 {
	var n int64
	for i := range parts {
		if parts[i].Type == message.PartFile && parts[i].File != nil {
			n += int64(est.Count(AttachmentText(parts[i].File)))
		}
	}
	return n
}
