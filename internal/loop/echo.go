package loop

// Round-trip fidelity in the request (provider.EchoTable): the vendor
// fields a step's answer carried, stored with the parts they came with —
// a call's own (Gemini's thought signature) on its tool part, the
// message's (OpenRouter's reasoning_details, Gemini's text signature) on
// the step-finish part — go back with the assistant message every time
// it is sent, written by provider.EncodeEchoed. A pruned call keeps its
// echo (a prune clears the output only); a summarised range drops the
// entries whole, calls and signatures together. An entry without an echo
// is encoded as before, at no cost.

import (
	"encoding/json"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// rawEcho is a stream's echo as stored: nil for none.
func rawEcho(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// convertMode is what of ConvertOptions a kept conversion depends on
// (requestCache drops its conversions when it changes).
type convertMode struct {
	roundtrip    bool
	unsignedCall string
}

func modeOf(opt ConvertOptions) convertMode {
	return convertMode{roundtrip: opt.ReasoningRoundtrip, unsignedCall: opt.UnsignedCall}
}

// entryEcho is what an assistant entry sends back beyond its text,
// reasoning and calls; nil when nothing. A call stored without an echo
// gets opt.UnsignedCall (a session from before echoes were kept, or a
// call another model made).
func entryEcho(e *message.Entry, opt ConvertOptions) *provider.Echo {
	if e.Message.Role != message.RoleAssistant || e.Message.Summary {
		return nil
	}
	var echo *provider.Echo
	for i := range e.Parts {
		p := &e.Parts[i]
		var tool, step bool
		tool = p.Type == message.PartTool && p.Tool != nil && (len(p.Tool.Echo) > 0 || opt.UnsignedCall != "")
		step = p.Type == message.PartStepFinish && p.Step != nil && len(p.Step.Echo) > 0
		if !tool && !step {
			continue
		}
		if echo == nil {
			echo = &provider.Echo{}
		}
		if tool {
			if echo.Calls == nil {
				echo.Calls = map[string]string{}
			}
			echo.Calls[p.Tool.CallID] = string(p.Tool.Echo)
			if len(p.Tool.Echo) == 0 {
				echo.Calls[p.Tool.CallID] = opt.UnsignedCall
			}
		} else {
			echo.Message = string(p.Step.Echo)
		}
	}
	return echo
}

// encodeEchoes encodes, with echo, the assistant messages of msgs (one
// entry's, converted and repaired) into enc, leaving the others as they
// are. A message that cannot be encoded is left to the provider.
func encodeEchoes(msgs []openai.ChatCompletionMessage, enc [][]byte, echo *provider.Echo) {
	if echo.Empty() {
		return
	}
	for i := range msgs {
		if msgs[i].Role != openai.ChatMessageRoleAssistant {
			continue
		}
		if b, err := provider.EncodeEchoed(msgs[i], echo); err == nil {
			enc[i] = b
		}
	}
}
