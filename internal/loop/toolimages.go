package loop

// Images from tools (issue 29). A tool's images (tools.Result.Images:
// read of an image file, an MCP tool's image content; checked and bounded
// by the tool) are stored like attachments (attachments.Store, by
// content) and kept with the tool part (message.ToolState.Images).
//
// The chat format takes no image in a tool message (OpenAI's tool
// content is text, or text parts only), so the converter sends the tool's
// text as its result and the step's images in one user message right
// after the step's tool results: "Images from tool call ID (name):" and
// the images. OpenAI, Gemini's OpenAI-compatible endpoint, OpenRouter
// (which turns it into the provider's own format), vLLM, llama.cpp and
// Ollama all take a user message after tool results; Mistral's API used
// to refuse a user message right after a tool message, and a model that
// errs there is not told otherwise. A model without vision gets the same
// message with each image described (name, type, size, dimensions). The
// images count against WholeImages with the user's, a compaction's kept
// messages send them as a placeholder, and a pruned output sends none
// (tokens.ToolImages).
//
// A model nothing describes (config.ModelInfo.VisionUnknown) is tried
// with images; when its server refuses them (provider.IsImagesUnsupported)
// the user is told once and the model is sent descriptions for the rest
// of the session, as toolless.go does for tools.

import (
	"fmt"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/secrets"
	"github.com/ctxloop/agent/internal/tools"
)

// storeToolImages stores a tool's images and returns their part states;
// one the store could not take is kept with its error (described, never
// sent). Names are made safe to show.
func storeToolImages(store attachments.Store, images []tools.Image, secretValues []string) []*message.FileState {
	var out []*message.FileState
	for _, img := range images {
		name := secrets.Redact(tools.Sanitize(img.Name), secretValues...)
		f, err := store.Add(name, img.Data)
		if err != nil {
			f = &message.FileState{Kind: message.AttachImage, Path: name, MIME: img.Info.MIME, SizeBytes: img.Info.SizeBytes,
				Width: img.Info.Width, Height: img.Info.Height, Error: err.Error()}
		}
		out = append(out, f)
	}
	return out
}

// toolImagesMessage is the user message that carries the images of an
// assistant entry's tool calls, after its tool results; ok is false when
// they have none to send. whole are the images sent whole (wholeImages).
func toolImagesMessage(parts []message.Part, whole map[*message.FileState]bool, opt ConvertOptions) (msg openai.ChatCompletionMessage, ok bool) {
	var multi []openai.ChatMessagePart
	for i := range parts {
		p := &parts[i]
		if p.Type != message.PartTool || p.Tool == nil || p.Tool.CallID == "" {
			continue
		}
		imgs := tokens.ToolImages(p.Tool)
		if len(imgs) == 0 {
			continue
		}
		multi = append(multi, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: tokens.ToolImagesHeader(p.Tool)})
		for _, f := range imgs {
			why := imageSentEarlier
			switch {
			case opt.ImageURL == nil:
				why = imageNoVision
			case whole[f]:
				url, err := opt.ImageURL(f)
				if err == nil {
					multi = append(multi, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
						ImageURL: &openai.ChatMessageImageURL{URL: url}})
					continue
				}
				why = "could not be read: " + err.Error()
			}
			multi = append(multi, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: tokens.ImageDescription(f, why)})
		}
	}
	if multi == nil {
		return msg, false
	}
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: multi}, true
}

// toolImagesNewestFirst calls add with the tool images of an assistant
// entry, newest first, until add says stop.
func toolImagesNewestFirst(e *message.Entry, add func(f *message.FileState) bool) {
	for j := len(e.Parts) - 1; j >= 0; j-- {
		imgs := tokens.ToolImages(e.Parts[j].Tool)
		for k := len(imgs) - 1; k >= 0; k-- {
			if imgs[k].Error == "" && !add(imgs[k]) {
				return
			}
		}
	}
}

// visionOff reports whether model refused images this session.
func (sp *stepper) visionOff(model string) bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.visionless[model]
}

// turnVisionOff records that a model whose vision nothing described
// (info) refused images (err says so) and tells the user. It reports
// false when err is not that refusal or the model was already off.
func (sp *stepper) turnVisionOff(model string, vision config.ModelInfo, err error) bool {
	if !vision.VisionUnknown || !provider.IsImagesUnsupported(err) {
		return false
	}
	sp.mu.Lock()
	if sp.visionless[model] {
		sp.mu.Unlock()
		return false
	}
	if sp.visionless == nil {
		sp.visionless = map[string]bool{}
	}
	sp.visionless[model] = true
	sp.mu.Unlock()
	msg := "its server refused them"
	if pe := provider.Classify(err); pe != nil && pe.Message != "" {
		msg = fmt.Sprintf("the server said %q", pe.Message)
	}
	sp.emit(message.Event{Type: message.EventNote, SessionID: sp.sessionID, Note: fmt.Sprintf(
		"model %s does not take images (%s): they are described in text for the rest of this session; set models.%s.vision to false in your config to say so up front",
		model, msg, model)})
	return true
}
