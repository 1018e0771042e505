package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

// benchBody is an SSE body of n text chunks shaped like OpenAI's, then a
// fragmented tool call, a finish and a usage chunk.
func benchBody(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"word%d "},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"abc"}`+"\n\n", i)
	}
	for i := range 20 {
		fmt.Fprintf(&b, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"%s","function":{"name":"%s","arguments":"{\"k%d\":1,"}}]}}]}`+"\n\n",
			map[bool]string{true: "call_1"}[i == 0], map[bool]string{true: "write"}[i == 0], i)
	}
	b.WriteString(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"end\":1}"}}]}}]}` + "\n\n")
	b.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":1000,"total_tokens":1100}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStreamProcess measures parsing and event assembly alone (no
// network): 1,000 text chunks and a 21-fragment tool call per op.
func BenchmarkStreamProcess(b *testing.B) {
	body := benchBody(1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s := newStream(context.Background(), io.NopCloser(bytes.NewReader(body)), "")
		events := 0
		for {
			_, err := s.Recv()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			events++
		}
		if events < 1000 {
			b.Fatalf("%d events", events)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1021, "ns/chunk")
}

// BenchmarkStreamRoundTrip measures a whole call through providertest on
// 127.0.0.1: request, 1,000 streamed chunks, events.
func BenchmarkStreamRoundTrip(b *testing.B) {
	body := string(benchBody(1000))
	srv := providertest.New(b)
	srv.Handle(func(providertest.Request) providertest.Step { return providertest.RawSSE(body) })
	p := NewOpenAI(Config{BaseURL: srv.URL})
	b.ReportAllocs()
	for b.Loop() {
		s, err := p.Stream(context.Background(), Request{Model: "m"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := s.Recv(); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
		s.Close()
	}
}
