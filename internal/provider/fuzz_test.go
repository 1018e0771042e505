package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzStreamAssembly feeds arbitrary bytes to the SSE reader and chunk
// assembler: it must never panic or hang, must end with io.EOF right after
// one EventFinish or with a classified *Error, and must end every tool call
// it started exactly once.
func FuzzStreamAssembly(f *testing.F) {
	for _, dir := range []string{"testdata"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"a\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\"}}]}}]}\n\n"))
	f.Add([]byte(": comment\n\ndata: {\"error\":{\"message\":\"boom\"}}\n\n"))
	f.Add([]byte(`data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"a","index":0}],"extra_content":{"google":{}}}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"s","index":0}],"tool_calls":[{"index":0,"id":"c","function":{"name":"ls","arguments":"{}"},"extra_content":{"google":{"thought_signature":"t"}}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := newStream(context.Background(), io.NopCloser(bytes.NewReader(body)), "sk-fuzz")
		defer s.Close()
		started := map[int]bool{}
		ended := map[int]bool{}
		finishes := 0
		for i := 0; ; i++ {
			if i > 4*len(body)+16 {
				t.Fatalf("more events than input bytes: a loop")
			}
			ev, err := s.Recv()
			if errors.Is(err, io.EOF) {
				if finishes != 1 {
					t.Fatalf("EOF after %d finish events", finishes)
				}
				for idx := range started {
					if !ended[idx] {
						t.Fatalf("tool call %d started, never ended", idx)
					}
				}
				return
			}
			if err != nil {
				var perr *Error
				if !errors.As(err, &perr) {
					t.Fatalf("unclassified error %T: %v", err, err)
				}
				if bytes.Contains([]byte(perr.Error()), []byte("sk-fuzz")) {
					t.Fatalf("key in error: %v", perr)
				}
				return
			}
			// What goes back to the server is a JSON object, or nothing.
			if ev.Echo != "" && !(json.Valid([]byte(ev.Echo)) && ev.Echo[0] == '{') {
				t.Fatalf("message echo is not a JSON object: %s", ev.Echo)
			}
			if ev.ToolCall != nil && ev.ToolCall.Echo != "" && !(json.Valid([]byte(ev.ToolCall.Echo)) && ev.ToolCall.Echo[0] == '{') {
				t.Fatalf("call echo is not a JSON object: %s", ev.ToolCall.Echo)
			}
			switch ev.Type {
			case EventFinish:
				finishes++
			case EventToolCallStart:
				if started[ev.ToolCall.Index] {
					t.Fatalf("tool call %d started twice", ev.ToolCall.Index)
				}
				started[ev.ToolCall.Index] = true
			case EventToolCallEnd:
				if ended[ev.ToolCall.Index] {
					t.Fatalf("tool call %d ended twice", ev.ToolCall.Index)
				}
				ended[ev.ToolCall.Index] = true
			}
			if finishes > 0 && ev.Type != EventFinish {
				t.Fatalf("event %v after the finish", ev.Type)
			}
		}
	})
}
