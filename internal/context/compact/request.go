package compact

// The summary request. It must fit the window of the model that writes it,
// whatever the range to summarise: the range is rendered as a plain-text
// transcript (tool calls and results included as text, so no back-end
// refuses a request for carrying tool calls without a tool list), cut into
// chunks that each fit, and summarised oldest first, each chunk's summary
// folded into the next request as the earlier summary.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// DefaultSummaryMaxTokens caps the output of a summary request when the
// configuration does not (compaction.summary_max_tokens feeds it).
const DefaultSummaryMaxTokens = 8192

// summaryInputShare is the share of (window − output cap) a summary request
// may fill by our estimate: the rest absorbs the estimator's error on
// text the session has not calibrated (logs and numbers run 20–30% over
// chars/4) and the chat framing.
const summaryInputShare = 0.75

// minChunkTokens is the smallest transcript chunk worth a request.
const minChunkTokens = 256

// Sizing is how large a summary request may be for the model that writes
// it.
type Sizing struct {
	// MaxTokens is the request's output cap.
	MaxTokens int64
	// Input is what the request's messages may cost by our estimate:
	// the earlier summary, the transcript chunk and the instructions.
	Input int64
}

// SizeRequest sizes a summary request for a writer with this window and
// output limit (0: unknown), with maxTokens the configured cap (0:
// DefaultSummaryMaxTokens). The output cap is at most a quarter of the
// window; the input gets summaryInputShare of what is left.
func SizeRequest(window, maxOutput, maxTokens int64) Sizing {
	if maxTokens <= 0 {
		maxTokens = DefaultSummaryMaxTokens
	}
	if maxOutput > 0 {
		maxTokens = min(maxTokens, maxOutput)
	}
	maxTokens = max(min(maxTokens, window/4), 1)
	return Sizing{MaxTokens: maxTokens, Input: int64(float64(max(window-maxTokens, 0)) * summaryInputShare)}
}

// ChunkBudget is the transcript a request of this size can carry next to
// an earlier summary of earlierTokens and instructions of promptTokens.
// The earlier summary of a later chunk is a summary this process asked for,
// at most MaxTokens.
func (s Sizing) ChunkBudget(earlierTokens, promptTokens int64) int64 {
	return max(s.Input-max(earlierTokens, s.MaxTokens)-promptTokens, minChunkTokens)
}

// Transcript renders entries (oldest first) as plain-text blocks, one per
// message: "User:", "Assistant:" with each tool call and its result. A
// tool result longer than resultTokens is cut in its middle with a note
// (0 keeps it whole); pruned outputs are the cleared placeholder, as the
// model saw them; images are a placeholder with their name; the newest git
// status a user message carried (message.AttachEnv) follows its text.
func Transcript(entries []message.Entry, est tokens.Estimator, resultTokens int64) []string {
	var blocks []string
	statusAt, status := newestStatus(entries)
	for i, e := range entries {
		if tokens.IsMarker(e) || e.Message.Error == errSuperseded {
			continue
		}
		var b strings.Builder
		switch {
		case e.Message.Summary:
			b.WriteString("[Earlier summary]\n")
			b.WriteString(joinText(e.Parts))
		case e.Message.Role == message.RoleUser:
			text := withImages(joinText(e.Parts), e.Parts)
			if i == statusAt {
				text += "\n" + tokens.EnvText(status)
			}
			if strings.TrimSpace(text) == "" {
				continue
			}
			if e.Message.Synthetic {
				b.WriteString("User (automatic): ")
			} else {
				b.WriteString("User: ")
			}
			b.WriteString(text)
		default:
			writeAssistant(&b, e, est, resultTokens)
		}
		if b.Len() > 0 {
			blocks = append(blocks, b.String())
		}
	}
	return blocks
}

// newestStatus finds the newest git status part of entries' user
// messages: its entry's index (-1: none) and its text.
func newestStatus(entries []message.Entry) (entry int, text string) {
	entry = -1
	for i := len(entries) - 1; i >= 0 && entry < 0; i-- {
		if entries[i].Message.Role != message.RoleUser || entries[i].Message.Rewound() {
			continue
		}
		for _, p := range entries[i].Parts {
			if p.Type == message.PartFile && p.File != nil && p.File.Kind == message.AttachEnv {
				entry, text = i, p.File.Content
			}
		}
	}
	return entry, text
}

// withImages adds to a user message's text a placeholder for each of its
// images, by name: the summary never carries an image's bytes.
func withImages(text string, parts []message.Part) string {
	for i := range parts {
		if p := &parts[i]; tokens.IsImage(p) {
			if text != "" {
				text += "\n"
			}
			text += tokens.ImagePlaceholder(p.File, "sent earlier")
		}
	}
	return text
}

// errSuperseded is loop.ErrSuperseded: a failed attempt that was retried is
// not part of the conversation.
const errSuperseded = "superseded by a retry"

func writeAssistant(b *strings.Builder, e message.Entry, est tokens.Estimator, resultTokens int64) {
	text := joinText(e.Parts)
	if text != "" {
		b.WriteString("Assistant: ")
		b.WriteString(text)
	}
	for _, p := range e.Parts {
		if p.Type != message.PartTool || p.Tool == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		ref := ""
		if p.ID != "" {
			ref = " (ref=" + p.ID + ")" // the summary lists the refs that matter
		}
		fmt.Fprintf(b, "Assistant called tool %s %s%s\n", p.Tool.Name, compactJSON(p.Tool.Input), ref)
		result := tokens.ToolResult(p.Tool)
		if resultTokens > 0 && int64(est.Count(result)) > resultTokens {
			result = cutMiddle(result, est, resultTokens)
		}
		fmt.Fprintf(b, "Tool result (%s):\n%s", p.Tool.Name, result)
	}
}

// compactJSON returns a tool call's arguments on one line when they are
// JSON, as they are otherwise.
func compactJSON(args string) string {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return string(b)
}

// Chunks packs transcript blocks, in order, into chunks of at most budget
// tokens each. A block larger than budget is cut in its middle to fit (the
// whole message stays in the database), so every chunk fits.
func Chunks(blocks []string, est tokens.Estimator, budget int64) []string {
	budget = max(budget, minChunkTokens)
	var chunks []string
	var cur strings.Builder
	var used int64
	for _, bl := range blocks {
		cost := int64(est.Count(bl)) + 2
		if cost > budget {
			bl = cutMiddle(bl, est, budget-2)
			cost = int64(est.Count(bl)) + 2
		}
		if used+cost > budget && cur.Len() > 0 {
			chunks = append(chunks, cur.String())
			cur.Reset()
			used = 0
		}
		if cur.Len() > 0 {
			cur.WriteString("\n\n")
		}
		cur.WriteString(bl)
		used += cost
	}
	if cur.Len() > 0 {
		chunks = append(chunks, cur.String())
	}
	return chunks
}

// RequestText is the one user message of a summary request: the earlier
// summary if any, the transcript chunk, and the instructions
// (SummaryPrompt) last. part and parts number the chunk when the range
// takes several requests.
func RequestText(earlier, chunk, focus string, part, parts int) string {
	var b strings.Builder
	if strings.TrimSpace(earlier) != "" {
		b.WriteString("An earlier summary of this session:\n\n<earlier_summary>\n")
		b.WriteString(earlier)
		b.WriteString("\n</earlier_summary>\n\n")
	}
	if parts > 1 {
		fmt.Fprintf(&b, "The conversation that followed (part %d of %d, oldest first), as a transcript:\n\n", part, parts)
	} else {
		b.WriteString("The conversation that followed, as a transcript:\n\n")
	}
	b.WriteString("<transcript>\n")
	b.WriteString(chunk)
	b.WriteString("\n</transcript>\n\n")
	b.WriteString(SummaryPrompt(focus))
	return b.String()
}

// FitText returns text, cut in its middle with a note when it costs more
// than maxTokens.
func FitText(text string, est tokens.Estimator, maxTokens int64) string {
	if text == "" || int64(est.Count(text)) <= maxTokens {
		return text
	}
	return cutMiddle(text, est, max(maxTokens, 1))
}
