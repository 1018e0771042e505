package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/iotest"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

// requestsToEncode are requests shaped like the loop's and a few odd ones:
// HTML and non-ASCII text (escaped by encoding/json), image parts, tool
// calls and results, tools, a zero temperature, a model name that needs
// escaping.
func requestsToEncode() []openai.ChatCompletionRequest {
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You are <agent> & you help. Ünïcode: 日本 \u2028 done"},
		{Role: openai.ChatMessageRoleUser, Content: "Look at <b>this</b> & that"},
		{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "and this image"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,AAAA"}},
		}},
		{Role: openai.ChatMessageRoleAssistant, Content: "Reading it.", ReasoningContent: "they want the file",
			ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read", Arguments: `{"path":"a<b>.go"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Name: "read", Content: "package main\n\nfunc main() { println(\"&\") }\n"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "ls", Arguments: "{}"}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c2", Name: "ls", Content: ""},
		{Role: openai.ChatMessageRoleAssistant, Content: "Done."},
	}
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "read", Description: "Reads <a> file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"messages":{"type":"string"}}}`)}}}
	zero := float32(math.SmallestNonzeroFloat32)
	return []openai.ChatCompletionRequest{
		{Model: "gpt-4.1", Messages: msgs, Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}, MaxTokens: 4096},
		{Model: "anthropic/claude-sonnet-4.5", Messages: msgs, Tools: tools, Stream: true, MaxCompletionTokens: 100, Temperature: zero},
		{Model: `odd "model" <name>`, Messages: msgs[:1], Stream: true},
		{Model: "m", Messages: nil, Stream: true},
	}
}

// encodeRequest writes the bytes encodeWhole writes — the request as
// go-openai and encoding/json encode it in one piece — whatever the
// breakpoints and whichever messages come encoded already.
func TestEncodeRequestIsEncodeWhole(t *testing.T) {
	for ri, cr := range requestsToEncode() {
		n := len(cr.Messages)
		full := make([][]byte, n)
		partial := make([][]byte, n)
		for i, m := range cr.Messages {
			b, err := EncodeMessage(m)
			if err != nil {
				t.Fatal(err)
			}
			full[i] = b
			if i%2 == 0 {
				partial[i] = b
			}
		}
		for _, bps := range [][]int{nil, {0}, {0, n - 1}, {0, 2, 3, n - 1, 5, 6}, {1, 1, 3}, {-1, n + 3}} {
			want, err := encodeWholeBytes(cr, trimBreakpoints(bps))
			if err != nil {
				t.Fatal(err)
			}
			for ei, enc := range [][][]byte{nil, full, partial, full[:max(n-1, 0)]} {
				body, err := encodeRequest(cr, bps, enc)
				if err != nil {
					t.Fatalf("request %d, breakpoints %v, encodings %d: %v", ri, bps, ei, err)
				}
				got := body.bytes()
				read, _ := io.ReadAll(iotest.OneByteReader(body.reader()))
				if len(got) != body.size || !bytes.Equal(read, got) {
					t.Errorf("request %d: %d bytes read, %d in pieces, size %d", ri, len(read), len(got), body.size)
				}
				if err := iotest.TestReader(body.reader(), want); err != nil {
					t.Errorf("request %d, breakpoints %v, encodings %d: %v", ri, bps, ei, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("request %d, breakpoints %v, encodings %d:\n got %s\nwant %s", ri, bps, ei, got, want)
				}
			}
		}
	}
}

func trimBreakpoints(bps []int) []int {
	if len(bps) > MaxCacheBreakpoints {
		return bps[len(bps)-MaxCacheBreakpoints:]
	}
	return bps
}

// Messages that come encoded are not encoded again: the body carries the
// caller's bytes.
func TestEncodedMessagesAreSentAsGiven(t *testing.T) {
	srv := providertest.New(t, providertest.Text("ok"))
	p := NewOpenAI(Config{BaseURL: srv.URL})
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}, {Role: openai.ChatMessageRoleUser, Content: "there"}}
	given := []byte(`{"role":"user","content":"kept"}`)
	st, err := p.Stream(context.Background(), Request{Model: "m", Messages: msgs, Encoded: [][]byte{given, nil}})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	body := srv.Requests()[0].Body
	if !bytes.Contains(body, []byte(`"messages":[{"role":"user","content":"kept"},{"role":"user","content":"there"}],`)) {
		t.Errorf("body %s", body)
	}
}

// The body can be read again (http.Request.GetBody): a 307 redirect sends
// the same bytes to the new place.
func TestBodyIsSentAgainOnRedirect(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		if r.URL.Path == "/v1/chat/completions" {
			http.Redirect(w, r, "/v2/chat/completions", http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p := NewOpenAI(Config{BaseURL: srv.URL + "/v1"})
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}, {Role: openai.ChatMessageRoleUser, Content: "there"}}
	st, err := p.Stream(context.Background(), Request{Model: "m", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || !bytes.Equal(bodies[0], bodies[1]) || !bytes.Contains(bodies[0], []byte(`"content":"there"`)) {
		t.Errorf("bodies %q", bodies)
	}
}

// EncodeMessage writes json.Marshal's bytes, whatever the text holds:
// HTML, line and paragraph separators, control characters, invalid UTF-8.
func TestEncodeMessageIsJSONMarshal(t *testing.T) {
	odd := "a <b> & \u2028 \u2029 \x00 \x1f \t\n \xff\xfe é 日本 \"q\" \\ </script>"
	msgs := append(requestsToEncode()[0].Messages,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: odd, Name: odd},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: odd, ReasoningContent: odd, ToolCalls: []openai.ToolCall{
			{ID: odd, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: odd, Arguments: odd}}}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: odd}}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "both", MultiContent: []openai.ChatMessagePart{{Text: "x"}}},
	)
	for i, m := range msgs {
		got, gerr := EncodeMessage(m)
		want, werr := json.Marshal(m)
		if (gerr != nil) != (werr != nil) || !bytes.Equal(got, want) {
			t.Errorf("message %d: EncodeMessage %s (%v), json.Marshal %s (%v)", i, got, gerr, want, werr)
		}
	}
}

// TestShellEncodingReusedOnlyWhenSame encodes requests that share a tools
// slice, one after the other, changing what the shell cache keys on
// (breakpoints' wire order, the model, the cap, the tools), and checks each
// body against a whole encoding: a reused shell is never a stale one.
func TestShellEncodingReusedOnlyWhenSame(t *testing.T) {
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "read", Description: "Read <a> & b", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	other := append([]openai.Tool(nil), tools...)
	msgs := []openai.ChatCompletionMessage{{Role: "system", Content: "s"}, {Role: "user", Content: "hi"}}
	cases := []struct {
		cr  openai.ChatCompletionRequest
		bps []int
	}{
		{openai.ChatCompletionRequest{Model: "a", Messages: msgs, Tools: tools, Stream: true}, nil},
		{openai.ChatCompletionRequest{Model: "a", Messages: msgs, Tools: tools, Stream: true}, nil},
		{openai.ChatCompletionRequest{Model: "a", Messages: msgs, Tools: tools, Stream: true}, []int{1}},
		{openai.ChatCompletionRequest{Model: "a", Messages: msgs, Tools: tools, Stream: true}, nil},
		{openai.ChatCompletionRequest{Model: "b", Messages: msgs, Tools: tools, Stream: true}, nil},
		{openai.ChatCompletionRequest{Model: "b", Messages: msgs, Tools: tools, Stream: true, MaxTokens: 7}, nil},
		{openai.ChatCompletionRequest{Model: "b", Messages: msgs, Tools: tools[:0], Stream: true}, nil},
		{openai.ChatCompletionRequest{Model: "b", Messages: msgs, Tools: other, Stream: true}, nil},
		{openai.ChatCompletionRequest{Model: "b", Messages: msgs, Tools: other, Stream: true}, nil},
	}
	var last *byte
	for i, c := range cases {
		want, err := encodeWholeBytes(c.cr, c.bps)
		if err != nil {
			t.Fatal(err)
		}
		body, err := encodeRequest(c.cr, c.bps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := body.bytes(); !bytes.Equal(got, want) {
			t.Errorf("request %d:\n got %s\nwant %s", i, got, want)
		}
		if len(c.cr.Tools) == 0 {
			continue // encoded without the cache
		}
		shells.Lock()
		rest := &shells.rest[0]
		shells.Unlock()
		if reused := i > 0 && rest == last; reused != (i == 1 || i == 8) {
			t.Errorf("request %d: shell reused %v", i, reused)
		}
		last = rest
	}
}
