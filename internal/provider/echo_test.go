package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

// Gemini's OpenAI-compatible endpoint, as it streams a function call of
// Gemini 3: the call whole in one delta with its thought signature in
// extra_content, and a signature on a text part.
const (
	geminiSig     = "CiQBjz1rX0Z2c2lnbmF0dXJlLW9mLWEtY2FsbA=="
	geminiTextSig = "EjQKMgFyZWFzb24tdGV4dC1zaWduYXR1cmU="
)

func geminiStep() providertest.Step {
	return providertest.Reply(
		providertest.JSONChunk(`{"choices":[{"delta":{"role":"assistant","content":"Reading.","extra_content":{"google":{"thought_signature":"`+geminiTextSig+`"}}},"index":0}],"object":"chat.completion.chunk"}`),
		providertest.JSONChunk(`{"choices":[{"delta":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"`+geminiSig+`"}},"function":{"arguments":"{\"path\":\"a.go\"}","name":"read"},"id":"function-call-1","type":"function","index":0}]},"index":0}],"object":"chat.completion.chunk"}`),
		providertest.JSONChunk(`{"choices":[{"delta":{"role":"assistant"},"finish_reason":"tool_calls","index":0}],"object":"chat.completion.chunk","usage":{"completion_tokens":20,"prompt_tokens":100,"total_tokens":120}}`),
	)
}

func TestStreamKeepsGeminiThoughtSignatures(t *testing.T) {
	srv := providertest.New(t, geminiStep())
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	if o.err != nil || len(o.ends) != 1 {
		t.Fatalf("ends %+v err %v", o.ends, o.err)
	}
	if want := `{"extra_content":{"google":{"thought_signature":"` + geminiSig + `"}}}`; o.ends[0].Echo != want {
		t.Errorf("call echo %s, want %s", o.ends[0].Echo, want)
	}
	fin := o.events[len(o.events)-1]
	if want := `{"extra_content":{"google":{"thought_signature":"` + geminiTextSig + `"}}}`; fin.Echo != want {
		t.Errorf("message echo %s, want %s", fin.Echo, want)
	}
}

// OpenRouter streams reasoning_details in pieces: an item's text over
// several deltas (same type and index), its signature last, then an
// encrypted item; members of items it does not know ride along.
func TestStreamMergesReasoningDetailsInOrder(t *testing.T) {
	d := func(details string) providertest.Chunk {
		return providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"x","reasoning_details":` + details + `}}]}`)
	}
	srv := providertest.New(t, providertest.Reply(
		d(`[{"type":"reasoning.text","text":"Let me ","format":"anthropic-claude-v1","index":0}]`),
		d(`[{"type":"reasoning.text","text":"look.","format":"anthropic-claude-v1","index":0}]`),
		d(`[{"type":"reasoning.text","text":"","signature":"sig-A==","format":"anthropic-claude-v1","index":0}]`),
		d(`[{"type":"reasoning.encrypted","data":"ENC1","id":"rs_1","format":"anthropic-claude-v1","index":1,"vendor_new":{"k":[1,2]}}]`),
		providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`),
	))
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	if o.err != nil {
		t.Fatal(o.err)
	}
	want := `{"reasoning_details":[{"type":"reasoning.text","text":"Let me look.","format":"anthropic-claude-v1","index":0,"signature":"sig-A=="},` +
		`{"type":"reasoning.encrypted","data":"ENC1","id":"rs_1","format":"anthropic-claude-v1","index":1,"vendor_new":{"k":[1,2]}}]}`
	if got := o.events[len(o.events)-1].Echo; got != want {
		t.Errorf("echo\n got %s\nwant %s", got, want)
	}
	if o.ends[0].Echo != "" {
		t.Errorf("an OpenRouter call has no echo of its own: %s", o.ends[0].Echo)
	}
}

// Bad input: reasoning_details of a shape the merge does not know, and a
// call's extra_content of any shape, go back as the server sent them.
func TestVendorFieldsOfUnknownShapeAreKeptVerbatim(t *testing.T) {
	srv := providertest.New(t, providertest.Reply(
		providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"reasoning_details":{"opaque":[1,"two",{"3":null}]}}}]}`),
		providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"ls","arguments":"{}"},"extra_content":["not",{"an":"object"},2.50]}]},"finish_reason":"tool_calls"}]}`),
	))
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	if o.err != nil {
		t.Fatal(o.err)
	}
	if got, want := o.events[len(o.events)-1].Echo, `{"reasoning_details":{"opaque":[1,"two",{"3":null}]}}`; got != want {
		t.Errorf("message echo %s, want %s", got, want)
	}
	if got, want := o.ends[0].Echo, `{"extra_content":["not",{"an":"object"},2.50]}`; got != want {
		t.Errorf("call echo %s, want %s", got, want)
	}
}

// TestEncodeEchoedGolden: the next request's assistant message carries
// the echo where the vendor reads it, and is EncodeMessage's bytes
// without one.
func TestEncodeEchoedGolden(t *testing.T) {
	m := openai.ChatCompletionMessage{Role: "assistant", Content: "Reading.", ToolCalls: []openai.ToolCall{
		{ID: "function-call-1", Type: "function", Function: openai.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}},
		{ID: "function-call-2", Type: "function", Function: openai.FunctionCall{Name: "ls", Arguments: `{}`}},
	}}
	echo := &Echo{
		Message: `{"extra_content":{"google":{"thought_signature":"T"}}, "reasoning_details":[{"type":"reasoning.encrypted","data":"E"}]}`,
		Calls:   map[string]string{"function-call-1": `{"extra_content":{"google":{"thought_signature":"S1"}}}`},
	}
	got, err := EncodeEchoed(m, echo)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"assistant","content":"Reading.","tool_calls":[` +
		`{"id":"function-call-1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.go\"}"},"extra_content":{"google":{"thought_signature":"S1"}}},` +
		`{"id":"function-call-2","type":"function","function":{"name":"ls","arguments":"{}"}}],` +
		`"extra_content":{"google":{"thought_signature":"T"}},"reasoning_details":[{"type":"reasoning.encrypted","data":"E"}]}`
	if string(got) != want {
		t.Errorf("encoded\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Error("not valid JSON")
	}
	plain, _ := EncodeMessage(m)
	if none, _ := EncodeEchoed(m, nil); string(none) != string(plain) {
		t.Errorf("without an echo %s, want %s", none, plain)
	}
}

// TestRecordedStreamsHaveNoEcho: the recorded streams of the families
// that send reasoning_content (DeepSeek, GLM, Kimi, xAI, Moonshot) or
// nothing (OpenAI, Groq, llama-style) carry no vendor field to echo, and
// none is invented: their next request is what it was.
func TestRecordedStreamsHaveNoEcho(t *testing.T) {
	dir := fixturesUpward(t)
	files := []string{
		"vercel-ai/deepseek__deepseek-tool-call.chunks.txt", "vercel-ai/deepseek__deepseek-reasoning.chunks.txt",
		"vercel-ai/moonshotai__moonshotai-stream.chunks.txt", "vercel-ai/openai-compatible__xai-tool-call.chunks.txt",
		"vercel-ai/azure__azure-deepseek-reasoning.1.chunks.txt", "vercel-ai/groq__groq-reasoning.chunks.txt",
		"crush/zai-glm4.6__parallel_tool_calls__1.sse", "crush/deepseek-v4__parallel_tool_calls__1.sse",
		"crush/openrouter-kimi-k2__parallel_tool_calls__1.sse", "crush/openai-gpt-5__parallel_tool_calls__1.sse",
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			srv := providertest.New(t, stepFromFile(t, filepath.Join(dir, f)))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			o := collect(t, ctx, NewOpenAI(Config{BaseURL: srv.URL}))
			if o.err != nil {
				t.Fatal(o.err)
			}
			for _, ev := range o.events {
				if ev.Echo != "" || (ev.ToolCall != nil && ev.ToolCall.Echo != "") {
					t.Errorf("%v carries an echo: %q %+v", ev.Type, ev.Echo, ev.ToolCall)
				}
			}
			if strings.Contains(f, "reasoning") && o.reasoning == "" {
				t.Error("no reasoning read")
			}
		})
	}
}

// fixturesUpward finds shared/fixtures/providers in a directory above
// the working one (the main checkout's ../shared, or a worktree's).
func fixturesUpward(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f := filepath.Join(dir, "shared", "fixtures", "providers")
		if _, err := os.Stat(f); err == nil {
			return f
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/fixtures/providers not found above the working directory")
		}
		dir = parent
	}
}

// TestEchoTableNamesEveryKeptField: the fields the stream keeps are the
// table's EchoAlways rows, no more.
func TestEchoTableNamesEveryKeptField(t *testing.T) {
	kept := map[string]bool{}
	for _, f := range echoedFields {
		kept[f] = true
	}
	for _, f := range callFields {
		kept["tool_calls[]."+f] = true
	}
	for _, r := range EchoTable {
		if r.Policy == EchoAlways {
			if !kept[r.Field] {
				t.Errorf("row %+v: the stream does not keep it", r)
			}
			delete(kept, r.Field)
		}
	}
	for f := range kept {
		t.Errorf("%s is kept but no row of EchoTable says so", f)
	}
}

// TestWholeAnswerKeepsEcho: a server that answers stream:true with a
// whole chat.completion (choices carry message) keeps its fields too.
func TestWholeAnswerKeepsEcho(t *testing.T) {
	srv := providertest.New(t, providertest.Step{Status: 200, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"",` +
			`"reasoning_details":[{"type":"reasoning.encrypted","data":"E1","index":0}],` +
			`"tool_calls":[{"id":"f1","type":"function","function":{"name":"ls","arguments":"{}"},"extra_content":{"google":{"thought_signature":"S"}}}]}}]}`})
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	if o.err != nil || len(o.ends) != 1 {
		t.Fatalf("ends %+v err %v", o.ends, o.err)
	}
	if got, want := o.ends[0].Echo, `{"extra_content":{"google":{"thought_signature":"S"}}}`; got != want {
		t.Errorf("call echo %s, want %s", got, want)
	}
	if got, want := o.events[len(o.events)-1].Echo, `{"reasoning_details":[{"type":"reasoning.encrypted","data":"E1","index":0}]}`; got != want {
		t.Errorf("message echo %s, want %s", got, want)
	}
}

// BenchmarkReasoningDetailsMerge: a reasoning of 20k deltas is merged in
// time linear in its length.
func BenchmarkReasoningDetailsMerge(b *testing.B) {
	delta := json.RawMessage(`[{"type":"reasoning.text","text":"a few words of thought ","format":"anthropic-claude-v1","index":0}]`)
	for b.Loop() {
		var e echoState
		for range 20000 {
			e.add(nil, delta)
		}
		if len(e.object()) < 20000*20 {
			b.Fatal("short")
		}
	}
}

// TestEchoIsBounded: vendor fields past the answer's byte limit stop the
// stream, as a runaway answer does.
func TestEchoIsBounded(t *testing.T) {
	big := strings.Repeat("x", 600<<10)
	var chunks []providertest.Chunk
	for range 4 {
		chunks = append(chunks, providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"`+big+`"}]}}]}`))
	}
	srv := providertest.New(t, providertest.Reply(append(chunks, providertest.FinishChunk("stop"))...))
	p := NewOpenAI(Config{BaseURL: srv.URL})
	s, err := p.Stream(t.Context(), Request{Model: "m", MaxTokens: 1000, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		_, err := s.Recv()
		if err == nil {
			continue
		}
		if !strings.Contains(err.Error(), "the answer passed 1 MiB") {
			t.Fatalf("err %v, want the runaway error", err)
		}
		return
	}
}

// TestEchoNeverCarriesTheKey: a server that puts the API key in a field
// it wants back does not get it stored (the key never reaches the
// database): it is redacted like in errors.
func TestEchoNeverCarriesTheKey(t *testing.T) {
	const key = "sk-echo-secret-0123456789"
	srv := providertest.New(t, providertest.Reply(
		providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"extra_content":{"k":"`+key+`"},"tool_calls":[{"index":0,"id":"c","function":{"name":"ls","arguments":"{}"},"extra_content":{"google":{"thought_signature":"`+key+`"}}}]},"finish_reason":"tool_calls"}]}`),
	))
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL, APIKey: key}))
	if o.err != nil {
		t.Fatal(o.err)
	}
	for _, ev := range o.events {
		if strings.Contains(ev.Echo, key) || (ev.ToolCall != nil && strings.Contains(ev.ToolCall.Echo, key)) {
			t.Fatalf("%v carries the key: %q %+v", ev.Type, ev.Echo, ev.ToolCall)
		}
	}
	if !strings.Contains(o.ends[0].Echo, "[redacted]") {
		t.Errorf("call echo %s", o.ends[0].Echo)
	}
}
