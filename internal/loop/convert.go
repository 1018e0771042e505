package loop

import (
	"encoding/json"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// ErrSuperseded is the error of an assistant message whose stream failed and
// was retried: it stays in the database for the record and is never sent.
const ErrSuperseded = "superseded by a retry"

// SummaryPreamble introduces a compaction summary to the model.
const SummaryPreamble = "This conversation continues an earlier one that was summarised to fit the context window. The summary:\n\n"

// WholeImages is how many images, the newest of the visible history, are
// sent whole; older ones are sent as their placeholder, so that a session
// with many screenshots does not pay for every one at every step.
const WholeImages = 4

// Why an image is a placeholder (tokens.ImagePlaceholder).
const (
	imageSentEarlier = "sent earlier"
	imageNoVision    = "not sent: the model does not take images"
)

// ConvertOptions tune ToModelMessages.
type ConvertOptions struct {
	// ReasoningRoundtrip sends reasoning text back to the model.
	ReasoningRoundtrip bool
	// UnsignedCall is the echo of a tool call that has none, for a family
	// that refuses such a call (provider.UnsignedCallEcho); "" sends it
	// as it is.
	UnsignedCall string
	// ImageURL returns a stored image as a data URL; nil sends every image
	// as its placeholder (a model without vision).
	ImageURL func(f *message.FileState) (string, error)
}

// Visible returns the entries that are sent to the model, in the order they
// are sent: if there is a summary, the newest summary first, then the tail
// its compaction kept verbatim, then everything after the summary; otherwise
// the whole history. Compaction markers are not sent. The token estimates
// price exactly this (tokens.VisibleHistory).
func Visible(history []message.Entry) []message.Entry {
	return tokens.VisibleHistory(history).Entries()
}

// ToModelMessages converts stored history into the messages of a chat
// request. It guarantees what providers require: every tool call has exactly
// one result, right after the assistant message that made it; pruned outputs
// become message.ClearedOutput; interrupted or dangling calls get
// message.InterruptedOutput; assistant messages that failed without content,
// or were superseded by a retry, are skipped; arguments that are not valid
// JSON are sent as {} (the result says why the call failed).
//
// A user message's images follow its text as image_url parts (data URLs):
// the newest WholeImages of them whole, older ones as a text placeholder
// with their name; the calculator counts each as tokens.ImageTokens.
func ToModelMessages(history []message.Entry, opt ConvertOptions) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	visible := Visible(history)
	whole := wholeImages(visible)
	for i := range visible {
		out = appendEntry(out, &visible[i], whole, opt)
	}
	return out
}

// appendEntry appends the messages one visible entry is sent as: none, a
// user message, or an assistant message and its tool results. whole are
// the images sent whole (wholeImages); only a user message with images
// reads it.
func appendEntry(out []openai.ChatCompletionMessage, e *message.Entry, whole map[*message.FileState]bool, opt ConvertOptions) []openai.ChatCompletionMessage {
	m := &e.Message
	switch {
	case m.Summary:
		return append(out, openai.ChatCompletionMessage{
			Role:    openai.ChatMessageRoleUser,
			Content: SummaryPreamble + joinText(e.Parts, message.PartText),
		})
	case m.Role == message.RoleUser:
		text := tokens.UserContent(e.Parts)
		if multi := userImages(e.Parts, text, whole, opt); multi != nil {
			return append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: multi})
		}
		if text == "" {
			return out
		}
		return append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text})
	case m.Role == message.RoleAssistant:
		return appendAssistant(out, *e, whole, opt)
	}
	return out
}

// wholeImages returns the images sent whole: the newest WholeImages of the
// entries' user messages and tool results (toolimages.go); a tool's
// images stored before the summary (kept verbatim by its compaction) are
// not.
func wholeImages(entries []message.Entry) map[*message.FileState]bool {
	whole := map[*message.FileState]bool{}
	summaryID := ""
	for i := range entries {
		if entries[i].Message.Summary {
			summaryID = entries[i].Message.ID
		}
	}
	for i := len(entries) - 1; i >= 0 && len(whole) < WholeImages; i-- {
		e := &entries[i]
		if e.Message.Role == message.RoleAssistant && (summaryID == "" || e.Message.ID > summaryID) {
			toolImagesNewestFirst(e, func(f *message.FileState) bool {
				whole[f] = true
				return len(whole) < WholeImages
			})
		}
		if e.Message.Role != message.RoleUser || e.Message.Summary {
			continue
		}
		for j := len(e.Parts) - 1; j >= 0 && len(whole) < WholeImages; j-- {
			if p := &e.Parts[j]; tokens.IsImage(p) && p.File.Error == "" {
				whole[p.File] = true
			}
		}
	}
	return whole
}

// userImages returns the content parts of a user message with images: its
// text, then each image whole or as its placeholder; nil when it has none.
func userImages(parts []message.Part, text string, whole map[*message.FileState]bool, opt ConvertOptions) []openai.ChatMessagePart {
	var multi []openai.ChatMessagePart
	for i := range parts {
		p := &parts[i]
		if !tokens.IsImage(p) || p.File.Error != "" {
			continue
		}
		if multi == nil && text != "" {
			multi = append(multi, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: text})
		}
		why := imageSentEarlier
		if opt.ImageURL == nil {
			why = imageNoVision
		} else if whole[p.File] {
			url, err := opt.ImageURL(p.File)
			if err == nil {
				multi = append(multi, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: url}})
				continue
			}
			why = "could not be read: " + err.Error()
		}
		multi = append(multi, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: tokens.ImagePlaceholder(p.File, why)})
	}
	return multi
}

func appendAssistant(out []openai.ChatCompletionMessage, e message.Entry, whole map[*message.FileState]bool, opt ConvertOptions) []openai.ChatCompletionMessage {
	if e.Message.Error == ErrSuperseded {
		return out
	}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	msg.Content = joinText(e.Parts, message.PartText)
	if opt.ReasoningRoundtrip {
		msg.ReasoningContent = joinText(e.Parts, message.PartReasoning)
	}
	var results []openai.ChatCompletionMessage
	for _, p := range e.Parts {
		if p.Type != message.PartTool || p.Tool == nil || p.Tool.CallID == "" {
			continue
		}
		args := p.Tool.Input
		if !json.Valid([]byte(args)) {
			args = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
			ID:       p.Tool.CallID,
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: p.Tool.Name, Arguments: args},
		})
		results = append(results, openai.ChatCompletionMessage{
			Role:       openai.ChatMessageRoleTool,
			ToolCallID: p.Tool.CallID,
			Name:       p.Tool.Name,
			Content:    tokens.ToolResult(p.Tool),
		})
	}
	if msg.Content == "" && len(msg.ToolCalls) == 0 {
		// Nothing the model said survives (an error before any output, or
		// only reasoning): sending an empty assistant turn is rejected by
		// several providers.
		return out
	}
	out = append(out, msg)
	out = append(out, results...)
	if images, ok := toolImagesMessage(e.Parts, whole, opt); ok {
		out = append(out, images)
	}
	return out
}

func joinText(parts []message.Part, typ message.PartType) string {
	var first string // the only text, as it is: no copy (most messages)
	var b strings.Builder
	for _, p := range parts {
		if p.Type != typ || p.Text == "" {
			continue
		}
		switch {
		case first == "":
			first = p.Text
		case b.Len() == 0:
			b.WriteString(first)
			fallthrough
		default:
			b.WriteString("\n")
			b.WriteString(p.Text)
		}
	}
	if b.Len() == 0 {
		return first
	}
	return b.String()
}

// RepairPairs enforces on a request what providers require of tool calls,
// whatever the history held: every call of an assistant message is answered
// by exactly one tool message right after it, in the calls' order. A
// missing result becomes message.InterruptedOutput; a second result for a
// call, a result for no call of the message before it, and a call whose id
// was already used (with its results) are removed. It returns the repaired
// messages and how many repairs it made; a request is never sent broken.
func RepairPairs(msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, int) {
	return repairPairs(make([]openai.ChatCompletionMessage, 0, len(msgs)), msgs, map[string]bool{})
}

// repairPairs appends msgs repaired to out; seen holds the call ids of
// the messages before msgs, and gets theirs. A run of messages that starts
// with a user or assistant message repairs the same whether it is alone
// or follows others, but for the ids seen before it: this is what lets a
// request be repaired one history entry at a time (requestCache).
func repairPairs(out, msgs []openai.ChatCompletionMessage, seen map[string]bool) ([]openai.ChatCompletionMessage, int) {
	repairs := 0
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == openai.ChatMessageRoleTool {
			repairs++ // a result that follows no call of its own
			continue
		}
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			out = append(out, m)
			continue
		}
		// The results right after the message, by call id.
		j := i + 1
		results := map[string]openai.ChatCompletionMessage{}
		for ; j < len(msgs) && msgs[j].Role == openai.ChatMessageRoleTool; j++ {
			if _, dup := results[msgs[j].ToolCallID]; dup {
				repairs++
				continue
			}
			results[msgs[j].ToolCallID] = msgs[j]
		}
		calls := make([]openai.ToolCall, 0, len(m.ToolCalls))
		for _, tc := range m.ToolCalls {
			if tc.ID == "" || seen[tc.ID] {
				repairs++
				continue
			}
			seen[tc.ID] = true
			calls = append(calls, tc)
		}
		m.ToolCalls = calls
		if len(calls) > 0 || m.Content != "" {
			out = append(out, m)
		}
		for _, tc := range calls {
			res, ok := results[tc.ID]
			if !ok {
				repairs++
				res = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID,
					Name: tc.Function.Name, Content: message.InterruptedOutput}
			}
			delete(results, tc.ID)
			out = append(out, res)
		}
		repairs += len(results) // results for calls this message did not make
		i = j - 1
	}
	return out, repairs
}
