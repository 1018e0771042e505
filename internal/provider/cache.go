package provider

// Explicit prompt-cache breakpoints. Anthropic's models (directly, or
// through OpenRouter and gateways like it) cache a request's prefix only up
// to content parts marked cache_control {"type":"ephemeral"}, at most four
// a request (openrouter.ai/docs, prompt caching; docs.anthropic.com,
// prompt caching). A marked message's content is sent as an array of text
// parts, the last one carrying the marker; the other messages are sent as
// go-openai encodes them. The encoding is a pure function of the request,
// so a message marked in two requests has the same bytes in both.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/sashabaranov/go-openai"
)

// MaxCacheBreakpoints is the most breakpoints a request may carry.
const MaxCacheBreakpoints = 4

// wireRequest is a chat request whose messages are encoded apart.
type wireRequest struct {
	openai.ChatCompletionRequest
	Messages []json.RawMessage `json:"messages"`
}

// EncodeMessage is a message's JSON as a request body carries it
// (Request.Encoded): json.Marshal's bytes, written by the message's own
// MarshalJSON without encoding/json checking and compacting them again
// (its output is json.Marshal's already: compact, HTML and U+2028
// escaped; TestEncodeRequestIsEncodeWhole).
func EncodeMessage(m openai.ChatCompletionMessage) ([]byte, error) {
	if b, ok := appendMessage(make([]byte, 0, messageSize(&m)), &m); ok {
		return b, nil // MarshalJSON's bytes, without its reflection (msgencode.go)
	}
	return m.MarshalJSON()
}

// encodeRequest is the JSON body of cr with the messages at the indexes of
// breakpoints marked (past MaxCacheBreakpoints, the last ones win). The
// messages are encoded one by one, or taken from encoded (Request.Encoded),
// and written into the body of the rest of the request: the bytes are
// encodeWhole's, without encoding again what the caller encoded before.
func encodeRequest(cr openai.ChatCompletionRequest, breakpoints []int, encoded [][]byte) (requestBody, error) {
	if len(cr.Messages) == 0 {
		return encodeWhole(cr, breakpoints)
	}
	if len(breakpoints) > MaxCacheBreakpoints {
		breakpoints = breakpoints[len(breakpoints)-MaxCacheBreakpoints:]
	}
	if len(encoded) != len(cr.Messages) {
		encoded = nil
	}
	msgs := make([][]byte, len(cr.Messages))
	size := len(msgs) + 1 // the brackets and commas
	for i := range cr.Messages {
		var b []byte
		if encoded != nil {
			b = encoded[i]
		}
		if b == nil {
			var err error
			if b, err = EncodeMessage(cr.Messages[i]); err != nil {
				return requestBody{}, err
			}
		}
		msgs[i] = b
		size += len(b)
	}
	for k, i := range breakpoints {
		if i < 0 || i >= len(msgs) || slices.Contains(breakpoints[:k], i) {
			continue
		}
		b, err := markCache(msgs[i])
		if err != nil {
			return requestBody{}, fmt.Errorf("message %d: %w", i, err)
		}
		size += len(b) - len(msgs[i])
		msgs[i] = b
	}
	// The rest of the request, its messages null, and where they go:
	// second (after the model) in go-openai's field order; last in
	// wireRequest's, which the marked messages use.
	shell := cr
	shell.Messages = nil
	var head, tail []byte
	if len(breakpoints) == 0 {
		rest, err := encodeShell(shell, false)
		if err != nil {
			return requestBody{}, err
		}
		model, err := json.Marshal(cr.Model)
		if err != nil {
			return requestBody{}, err
		}
		at := len(`{"model":`) + len(model) + len(`,"messages":`)
		if !bytes.HasPrefix(rest, []byte(`{"model":`)) || !bytes.HasPrefix(rest[min(at, len(rest)):], []byte("null")) ||
			!bytes.Equal(rest[len(`{"model":`):at], append(model, `,"messages":`...)) {
			return encodeWhole(cr, breakpoints)
		}
		head, tail = rest[:at], rest[at+len("null"):]
	} else {
		rest, err := encodeShell(shell, true)
		if err != nil {
			return requestBody{}, err
		}
		const end = `,"messages":null}`
		if !bytes.HasSuffix(rest, []byte(end)) {
			return encodeWhole(cr, breakpoints)
		}
		head, tail = rest[:len(rest)-len("null}")], []byte("}")
	}
	return requestBody{head: append(head[:len(head):len(head)], '['), msgs: msgs, tail: append([]byte("]"), tail...),
		size: len(head) + size + len(tail)}, nil
}

// shells remembers the last request's encoding without its messages,
// for the next step's: its tools' schemas (~10 KB) are the same every step
// of a session (tools.Registry.OpenAITools returns the same slice), and
// encoding them again was most of a step's encoding. The entry holds the
// tools slice, so its identity cannot be reused while it is compared.
var shells struct {
	sync.Mutex
	wire  bool
	tools []openai.Tool
	key   []byte // the shell without its tools
	rest  []byte
}

// encodeShell encodes a request without its messages (go-openai's field
// order, or wireRequest's when wire), from shells when only its messages
// changed since the last one.
func encodeShell(shell openai.ChatCompletionRequest, wire bool) ([]byte, error) {
	marshal := func(cr openai.ChatCompletionRequest) ([]byte, error) {
		if wire {
			return json.Marshal(wireRequest{ChatCompletionRequest: cr})
		}
		return json.Marshal(cr)
	}
	if len(shell.Tools) == 0 {
		return marshal(shell)
	}
	bare := shell
	bare.Tools = nil
	key, err := marshal(bare)
	if err != nil {
		return nil, err
	}
	shells.Lock()
	defer shells.Unlock()
	if shells.wire == wire && len(shells.tools) == len(shell.Tools) && &shells.tools[0] == &shell.Tools[0] &&
		bytes.Equal(shells.key, key) {
		return shells.rest, nil
	}
	rest, err := marshal(shell)
	if err != nil {
		return nil, err
	}
	shells.wire, shells.tools, shells.key, shells.rest = wire, shell.Tools, key, rest
	return rest, nil
}

// requestBody is a request's JSON: head, the messages separated by
// commas, and tail, read one after the other: a long history's messages
// are not copied into one buffer first, nor listed again with their
// commas.
type requestBody struct {
	head []byte
	msgs [][]byte
	tail []byte
	size int // bytes in all
}

// reader reads the body from its start.
func (b requestBody) reader() io.Reader { return &bodyReader{body: b} }

// bytes is the body in one buffer.
func (b requestBody) bytes() []byte {
	out := make([]byte, 0, b.size)
	r := bodyReader{body: b}
	for p := r.piece(); p != nil; p = r.piece() {
		out = append(out, p...)
		r.next()
	}
	return out
}

// bodyReader reads a requestBody piece by piece: head, then for each
// message a comma (but before the first) and the message, then tail.
type bodyReader struct {
	body requestBody
	at   int // the piece: 0 head, 2i+1 message i, 2i+2 the comma after it, 2n tail
	off  int // into the piece
}

var comma = []byte(",")

// piece is the piece read now, nil at the end.
func (r *bodyReader) piece() []byte {
	n := len(r.body.msgs)
	switch {
	case r.at == 0:
		return r.body.head
	case r.at > 2*n:
		return nil
	case r.at == 2*n:
		return r.body.tail
	case r.at%2 == 1:
		return r.body.msgs[r.at/2]
	}
	return comma
}

func (r *bodyReader) next() { r.at, r.off = r.at+1, 0 }

func (r *bodyReader) Read(p []byte) (n int, err error) {
	for n < len(p) {
		piece := r.piece()
		if piece == nil {
			break
		}
		c := copy(p[n:], piece[r.off:])
		n, r.off = n+c, r.off+c
		if r.off == len(piece) {
			r.next()
		}
	}
	if n == 0 && len(p) > 0 && r.piece() == nil {
		return 0, io.EOF
	}
	return n, nil
}

// encodeWhole is the JSON body of cr with the messages at the indexes of
// breakpoints (at most MaxCacheBreakpoints) marked, encoded in one piece:
// go-openai's request as encoding/json writes it, the messages in a
// wireRequest when some are marked.
func encodeWhole(cr openai.ChatCompletionRequest, breakpoints []int) (requestBody, error) {
	b, err := encodeWholeBytes(cr, breakpoints)
	return requestBody{head: b, size: len(b)}, err
}

func encodeWholeBytes(cr openai.ChatCompletionRequest, breakpoints []int) ([]byte, error) {
	if len(breakpoints) == 0 {
		return json.Marshal(cr)
	}
	mark := map[int]bool{}
	for _, i := range breakpoints {
		mark[i] = true
	}
	w := wireRequest{ChatCompletionRequest: cr, Messages: make([]json.RawMessage, len(cr.Messages))}
	for i, m := range cr.Messages {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		if mark[i] {
			if b, err = markCache(b); err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
		}
		w.Messages[i] = b
	}
	return json.Marshal(w)
}

// markCache returns the encoded message b with cache_control on its last
// content part, a string content becoming one text part. A message with no
// text (an assistant's tool calls alone) is returned as is.
func markCache(b []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	var parts []map[string]any
	var text string
	switch raw := fields["content"]; {
	case len(raw) == 0:
		return b, nil
	case json.Unmarshal(raw, &text) == nil:
		if text == "" {
			return b, nil
		}
		parts = []map[string]any{{"type": "text", "text": text}}
	case json.Unmarshal(raw, &parts) == nil:
		if len(parts) == 0 {
			return b, nil
		}
	default:
		return b, nil
	}
	parts[len(parts)-1]["cache_control"] = map[string]string{"type": "ephemeral"}
	content, err := json.Marshal(parts)
	if err != nil {
		return nil, err
	}
	fields["content"] = content
	return json.Marshal(fields)
}

// sentReader is a body of left bytes that calls sent once they are
// read, or at its end (Request.Sent).
type sentReader struct {
	r    io.Reader
	left int
	sent func()
}

func (s *sentReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if s.left -= n; err != nil || s.left <= 0 {
		s.sent()
	}
	return n, err
}

// onceFunc is sync.OnceFunc of f, or a no-op for a nil f.
func onceFunc(f func()) func() {
	if f == nil {
		return func() {}
	}
	return sync.OnceFunc(f)
}
