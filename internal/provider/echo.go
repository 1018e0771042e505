package provider

// Round-trip fidelity: the vendor fields an answer carries that its
// server wants back on the next request. They are read from the stream
// (EventToolCallEnd's ToolCall.Echo for a call's own fields,
// EventFinish's Echo for the message's), stored with the part they came
// with, and written back by EncodeEchoed, the one place that adds them to
// a message's JSON. A field's value is kept as the JSON the server sent
// and written back byte for byte (compacted), whatever its shape: only
// OpenRouter's streamed reasoning_details are put together from their
// deltas (mergeDetails), and a value of a shape that merge does not know
// is kept as its last delta sent it.
//
// Which fields are kept and sent back, per family, is EchoTable.

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// EchoPolicy says when a field is sent back.
type EchoPolicy string

// The policies of EchoTable.
const (
	// EchoAlways: kept from the answer and sent back with its message
	// (a server that sent it takes it back).
	EchoAlways EchoPolicy = "always"
	// EchoIfRoundtrip: the reasoning text, sent as reasoning_content when
	// the model's ReasoningRoundtrip is set (config, or derived from the
	// catalog's Interleaved "reasoning_content").
	EchoIfRoundtrip EchoPolicy = "if reasoning_roundtrip"
	// EchoNever: read (as reasoning text) but never sent back.
	EchoNever EchoPolicy = "never"
	// EchoStandIn: sent in place of a missing field (UnsignedCallEcho).
	EchoStandIn EchoPolicy = "stand-in"
)

// EchoRow is one row of EchoTable: a family, a field of the assistant
// message ("reasoning_details") or of each of its tool calls
// ("tool_calls[].extra_content"), and when it is sent back.
type EchoRow struct {
	Family string
	Field  string
	Policy EchoPolicy
}

// EchoTable says, per family, what the agent sends back of what the
// model sent. The rows with EchoAlways are the raw fields kept (the
// stream keeps exactly these); reasoning_content goes through the
// reasoning parts' text. A family not listed sends nothing back but its
// reasoning when reasoning_roundtrip is set (a local llama.cpp or vLLM
// server, OpenAI's own models).
var EchoTable = []EchoRow{
	// Google, Gemini 3 on the OpenAI-compatible endpoint: every function
	// call carries extra_content.google.thought_signature, and a request
	// whose history holds the call without it is refused (400 "Function
	// call is missing a thought_signature").
	{"gemini", "tool_calls[].extra_content", EchoAlways},
	// Google: a text part may carry a signature too; it is to be sent
	// back with the message (not enforced, but the reasoning is lost
	// without it).
	{"gemini", "extra_content", EchoAlways},
	// OpenRouter: reasoning_details are to be passed back unmodified and
	// in order (with their signatures and encrypted data); Anthropic and
	// Gemini models behind it refuse or lose a tool-use continuation
	// without them.
	{"openrouter", "reasoning_details", EchoAlways},
	// Moonshot, Kimi K2 thinking: the reasoning_content of an assistant
	// message with tool calls must be sent back; DeepSeek's thinking mode
	// with tool calls requires it too, while older deepseek-reasoner
	// refused it: hence per model (catalog Interleaved, config).
	{"kimi, deepseek, glm, minimax", "reasoning_content", EchoIfRoundtrip},
	// Groq and OpenRouter stream reasoning as "reasoning"; Groq refuses
	// the field on input messages, OpenRouter takes reasoning_details.
	{"groq, openrouter", "reasoning", EchoNever},
	// Google: a function call with no signature (made by another model,
	// or stored before signatures were kept) is refused by Gemini 3 as
	// missing one; Google's documented stand-in skips the check for it
	// (UnsignedCallEcho).
	{"gemini", "tool_calls[].extra_content of a call without one", EchoStandIn},
	// OpenAI's o-series and gpt-5 keep their reasoning on the server:
	// chat completions has no field to return it, nothing is sent back.
	{"openai", "", EchoNever},
}

// skipSignature is Google's documented thought_signature for a function
// call that has none of its own (ai.google.dev, thought signatures).
const skipSignature = "skip_thought_signature_validator"

// UnsignedCallEcho is the echo sent with a tool call that has none of its
// own, for a model that refuses such a call: Gemini's models on Google's
// OpenAI-compatible endpoint (named without a vendor prefix, "gemini-…").
// "" for every other model, which is sent the call as it is.
func UnsignedCallEcho(model string) string {
	if !strings.HasPrefix(strings.ToLower(model), "gemini-") {
		return ""
	}
	return `{"extra_content":{"google":{"thought_signature":"` + skipSignature + `"}}}`
}

// echoedFields are the message fields of EchoTable kept raw; callFields
// the tool calls' ones.
var (
	echoedFields = []string{"extra_content", "reasoning_details"}
	callFields   = []string{"extra_content"}
)

// Echo is what an assistant message sends back beyond go-openai's fields:
// Message a JSON object of its own fields ("": none), and Calls, by tool
// call id, a JSON object of each call's fields.
type Echo struct {
	Message string
	Calls   map[string]string
}

// Empty reports whether the echo adds nothing.
func (e *Echo) Empty() bool { return e == nil || (len(e.Message) == 0 && len(e.Calls) == 0) }

// EncodeEchoed is m's JSON (EncodeMessage) with echo's fields: each call's
// after its function, the message's after the rest. Without an echo it is
// EncodeMessage's bytes.
func EncodeEchoed(m openai.ChatCompletionMessage, echo *Echo) ([]byte, error) {
	if echo.Empty() {
		return EncodeMessage(m)
	}
	calls := m.ToolCalls
	m.ToolCalls = nil
	b, err := EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	if len(calls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		for i, tc := range calls {
			if i > 0 {
				b = append(b, ',')
			}
			c, err := json.Marshal(tc)
			if err != nil {
				return nil, err
			}
			b = append(b, appendFields(c[:len(c)-1], echo.Calls[tc.ID])...)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendFields(b, echo.Message)
	return append(b, '}'), nil
}

// appendFields appends the members of the JSON object obj (compacted),
// each after a comma, to b, an object's JSON without its closing brace.
func appendFields(b []byte, s string) []byte {
	obj := bytes.TrimSpace([]byte(s))
	if len(obj) < 2 || obj[0] != '{' {
		return b
	}
	var c bytes.Buffer
	if json.Compact(&c, obj) != nil {
		return b
	}
	inner := c.Bytes()[1 : c.Len()-1]
	if len(inner) == 0 {
		return b
	}
	return append(append(b, ','), inner...)
}

// echoState collects the message fields of EchoTable over a stream.
type echoState struct {
	fields  map[string]json.RawMessage // the last value of each, but reasoning_details
	details []detail                   // reasoning_details merged (mergeDetails)
	odd     json.RawMessage            // reasoning_details of a shape not merged: the last one
}

// add takes one delta's raw fields.
func (e *echoState) add(extra, details json.RawMessage) {
	if hasValue(extra) {
		if e.fields == nil {
			e.fields = map[string]json.RawMessage{}
		}
		e.fields["extra_content"] = slices.Clone(extra)
	}
	if hasValue(details) {
		if merged, ok := mergeDetails(e.details, details); ok {
			e.details = merged
		} else {
			e.odd = slices.Clone(details)
		}
	}
}

// object is the fields collected as a JSON object, "" when none.
func (e *echoState) object() string {
	var members [][]byte
	for _, name := range echoedFields {
		var v []byte
		switch {
		case name == "reasoning_details" && e.odd != nil:
			v = e.odd
		case name == "reasoning_details" && len(e.details) > 0:
			v = encodeDetails(e.details)
		default:
			v = e.fields[name]
		}
		if v != nil {
			k, _ := json.Marshal(name)
			members = append(members, append(append(k, ':'), v...))
		}
	}
	if members == nil {
		return ""
	}
	return "{" + string(bytes.Join(members, []byte(","))) + "}"
}

// callEcho is a call's fields (its extra_content) as a JSON object.
func callEcho(extra json.RawMessage) string {
	if !hasValue(extra) {
		return ""
	}
	return `{"extra_content":` + string(extra) + "}"
}

// detail is one reasoning_details item: its members in their order,
// each raw, but a text, summary or data string continued over deltas,
// which is put together in a builder (joined[i] non-nil) and encoded
// once at the end: a long reasoning streamed in thousands of deltas
// costs its length, not its length times the deltas.
type detail struct {
	keys   []string
	vals   []json.RawMessage
	joined []*strings.Builder
}

func (d *detail) get(k string) json.RawMessage {
	if i := slices.Index(d.keys, k); i >= 0 {
		return d.vals[i]
	}
	return nil
}

func (d *detail) set(k string, v json.RawMessage) {
	if i := slices.Index(d.keys, k); i >= 0 {
		d.vals[i], d.joined[i] = v, nil
		return
	}
	d.keys, d.vals, d.joined = append(d.keys, k), append(d.vals, v), append(d.joined, nil)
}

// join continues member k, a string, with v; a member that is not a
// string on either side is replaced by v.
func (d *detail) join(k string, v json.RawMessage) {
	i := slices.Index(d.keys, k)
	var more string
	if i < 0 || json.Unmarshal(v, &more) != nil {
		d.set(k, v)
		return
	}
	if d.joined[i] == nil {
		var was string
		if json.Unmarshal(d.vals[i], &was) != nil {
			d.set(k, v)
			return
		}
		d.joined[i] = &strings.Builder{}
		d.joined[i].WriteString(was)
	}
	d.joined[i].WriteString(more)
}

// value is member i as it goes back.
func (d *detail) value(i int) json.RawMessage {
	if d.joined[i] != nil {
		b, _ := json.Marshal(d.joined[i].String())
		return b
	}
	return d.vals[i]
}

// mergeDetails adds a delta's reasoning_details to what came before:
// an item with the type and index of one before continues it (its text,
// summary and data appended to that one's, its other members replacing
// or joining that one's: the signature comes last); other items are
// appended in their order. ok is false when the delta is not an array of
// objects.
func mergeDetails(acc []detail, raw json.RawMessage) ([]detail, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return acc, false
	}
	parsed := make([]detail, 0, len(items))
	for _, it := range items {
		d, ok := parseObject(it)
		if !ok {
			return acc, false
		}
		parsed = append(parsed, d)
	}
	for _, d := range parsed {
		at := -1
		if idx := d.get("index"); idx != nil {
			for i := range acc {
				if bytes.Equal(acc[i].get("index"), idx) && bytes.Equal(acc[i].get("type"), d.get("type")) {
					at = i
				}
			}
		}
		if at < 0 {
			acc = append(acc, d)
			continue
		}
		prev := &acc[at]
		for i, k := range d.keys {
			v := d.vals[i]
			switch old := prev.get(k); {
			case k == "text" || k == "summary" || k == "data":
				prev.join(k, v)
			case bytes.Equal(v, []byte("null")) && old != nil:
			default:
				prev.set(k, v)
			}
		}
	}
	return acc, true
}

// parseObject reads a JSON object's members in order, each value raw.
func parseObject(b []byte) (detail, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return detail{}, false
	}
	var d detail
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return detail{}, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return detail{}, false
		}
		var c bytes.Buffer
		_ = json.Compact(&c, v)
		d.keys, d.vals, d.joined = append(d.keys, k), append(d.vals, c.Bytes()), append(d.joined, nil)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return detail{}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return detail{}, false
	}
	return d, true
}

// encodeDetails writes merged items back, members in their order.
func encodeDetails(ds []detail) json.RawMessage {
	b := []byte{'['}
	for i, d := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, k := range d.keys {
			if j > 0 {
				b = append(b, ',')
			}
			kb, _ := json.Marshal(k)
			b = append(append(append(b, kb...), ':'), d.value(j)...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
