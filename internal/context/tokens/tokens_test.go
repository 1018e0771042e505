package tokens

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestChars(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("x", 400), 100},
		{"日本語", 3}, // 9 bytes: bytes, not runes, are counted
	}
	for _, tt := range tests {
		if got := (Chars{}).Count(tt.text); got != tt.want {
			t.Errorf("Chars.Count(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestMessageOverhead(t *testing.T) {
	tests := []struct {
		messages int
		want     int64
	}{{0, 3}, {1, 7}, {10, 43}, {-1, 3}}
	for _, tt := range tests {
		if got := MessageOverhead(tt.messages); got != tt.want {
			t.Errorf("MessageOverhead(%d) = %d, want %d", tt.messages, got, tt.want)
		}
	}
}

func TestEncodingFor(t *testing.T) {
	tests := []struct{ model, want string }{
		{"gpt-4o", encodingO200k},
		{"gpt-4o-mini-2024-07-18", encodingO200k},
		{"GPT-4.1", encodingO200k},
		{"openai/gpt-4.1-mini", encodingO200k},
		{"gpt-4.5-preview", encodingO200k},
		{"gpt-5", encodingO200k},
		{"gpt-5.1-codex", encodingO200k},
		{"o1", encodingO200k},
		{"o1-mini", encodingO200k},
		{"o3-mini", encodingO200k},
		{"o4-mini-high", encodingO200k},
		{"chatgpt-4o-latest", encodingO200k},
		{"gpt-oss:20b", encodingO200k},
		{"gpt-4", encodingCl100k},
		{"gpt-4-turbo", encodingCl100k},
		{"gpt-4-32k", encodingCl100k},
		{"gpt-3.5-turbo", encodingCl100k},
		{"o1x", ""},
		{"omni-moderation", ""},
		{"claude-sonnet-4-5", ""},
		{"deepseek-chat", ""},
		{"llama3.1:8b", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := encodingFor(tt.model); got != tt.want {
			t.Errorf("encodingFor(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}

func TestNewEstimatorFallsBackToChars(t *testing.T) {
	for _, model := range []string{"claude-sonnet-4-5", "qwen3-coder", ""} {
		est := NewEstimator(model)
		if _, ok := est.(Chars); !ok {
			t.Errorf("NewEstimator(%q) = %T, want Chars", model, est)
		}
		select {
		case <-Ready(est):
		default:
			t.Errorf("Ready(NewEstimator(%q)) is not closed", model)
		}
		if got := est.Count("hello world"); got != 3 {
			t.Errorf("NewEstimator(%q).Count(hello world) = %d, want 3 (chars/4)", model, got)
		}
	}
}

func TestTokenizerCountsOnceLoaded(t *testing.T) {
	tests := []struct {
		model, encoding string
		text            string
		want            int
	}{
		{"gpt-4o", encodingO200k, "hello world", 2},
		{"gpt-5-mini", encodingO200k, "hello world", 2},
		{"gpt-4", encodingCl100k, "hello world", 2},
		// A special-token marker in a tool output is ordinary text, not a panic.
		{"gpt-4o", encodingO200k, "<|endoftext|>", 7},
	}
	for _, tt := range tests {
		est := NewEstimator(tt.model)
		tok, ok := est.(*Tokenizer)
		if !ok {
			t.Fatalf("NewEstimator(%q) = %T, want *Tokenizer", tt.model, est)
		}
		if tok.Encoding() != tt.encoding {
			t.Errorf("NewEstimator(%q).Encoding() = %q, want %q", tt.model, tok.Encoding(), tt.encoding)
		}
		select {
		case <-Ready(Calibrated{Estimator: est, Ratio: 1}):
		case <-time.After(time.Minute):
			t.Fatalf("%s tables not loaded after a minute", tt.encoding)
		}
		if err := tok.Err(); err != nil {
			t.Fatalf("load %s: %v", tt.encoding, err)
		}
		if !tok.Loaded() {
			t.Fatalf("%s: Ready closed but not Loaded", tt.encoding)
		}
		if got := est.Count(tt.text); got != tt.want {
			t.Errorf("%s Count(%q) = %d, want %d", tt.model, tt.text, got, tt.want)
		}
	}
}

// Until the tables are loaded — and forever if they cannot be — Count
// answers with chars/4 and never blocks.
func TestTokenizerFallsBackUntilLoaded(t *testing.T) {
	tok := &Tokenizer{loader: &encodingLoader{name: "no_such_encoding", ready: make(chan struct{})}}
	text := strings.Repeat("hello world ", 10) // 120 bytes
	if got := tok.Count(text); got != 30 {
		t.Errorf("Count before load = %d, want chars/4 = 30", got)
	}
	<-tok.Ready()
	if tok.Err() == nil {
		t.Error("Err() = nil after loading an unknown encoding")
	}
	if tok.Loaded() {
		t.Error("Loaded() = true after a failed load")
	}
	if got := tok.Count(text); got != 30 {
		t.Errorf("Count after failed load = %d, want chars/4 = 30", got)
	}
}

func TestCalibratedScalesAndRoundsUp(t *testing.T) {
	tests := []struct {
		ratio float64
		text  string
		want  int
	}{
		{0, strings.Repeat("x", 400), 100},
		{1, strings.Repeat("x", 400), 100},
		{1.15, strings.Repeat("x", 400), 115},
		{1.01, strings.Repeat("x", 4), 2},
		{0.5, strings.Repeat("x", 400), 50},
		{2, "", 0},
	}
	for _, tt := range tests {
		got := Calibrated{Estimator: Chars{}, Ratio: tt.ratio}.Count(tt.text)
		if got != tt.want {
			t.Errorf("Calibrated{ratio %v}.Count(%d bytes) = %d, want %d", tt.ratio, len(tt.text), got, tt.want)
		}
	}
}

func TestCalibrationMovingAverage(t *testing.T) {
	tests := []struct {
		name    string
		samples [][2]int64 // estimate, actual
		want    float64
	}{
		{"no sample", nil, 1},
		{"one sample moves 30 %", [][2]int64{{1000, 1500}}, 1.15},
		{"clamped high", [][2]int64{{100, 1000}}, 1.3},
		{"clamped low", [][2]int64{{1000, 100}}, 0.85},
		{"two samples", [][2]int64{{1000, 1500}, {1000, 1500}}, 0.7*1.15 + 0.3*1.5},
		{"ignores non-positive", [][2]int64{{0, 100}, {100, 0}, {100, -5}}, 1},
	}
	for _, tt := range tests {
		var c Calibration
		for _, s := range tt.samples {
			c.Update(s[0], s[1])
		}
		if got := c.Ratio(); !approx(got, tt.want) {
			t.Errorf("%s: Ratio() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func approx(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

func TestChunkEnd(t *testing.T) {
	tests := []struct {
		name string
		text string
		max  int
		want int
	}{
		{"short", "hello", 8, 5},
		{"after the last newline in the second half", "abcdef\ngh\nijklmnop", 12, 10},
		{"a newline in the first half does not count", "ab\ncdefghijklmnop", 12, 12},
		{"before the last space", "abcdefg hij klmnop", 12, 11},
		{"rune boundary", "日本語日本語", 8, 6},
	}
	for _, tt := range tests {
		if got := chunkEnd(tt.text, tt.max); got != tt.want {
			t.Errorf("%s: chunkEnd(%q, %d) = %d, want %d", tt.name, tt.text, tt.max, got, tt.want)
		}
	}
}

// Long runs that are one pre-token (quadratic to merge) are counted in
// chunks, close to the exact count.
func TestTokenizerChunksLongRuns(t *testing.T) {
	est := NewEstimator("gpt-4o")
	<-Ready(est)
	tests := []struct {
		text  string
		exact int
	}{
		{strings.Repeat("a", 50000), 6250},
		{strings.Repeat("日本語のテキスト", 2000), 12000},
	}
	for _, tt := range tests {
		got := est.Count(tt.text)
		if d := math.Abs(float64(got-tt.exact)) / float64(tt.exact); d > 0.01 {
			t.Errorf("Count(%.10q… %d bytes) = %d, want within 1%% of %d", tt.text, len(tt.text), got, tt.exact)
		}
	}
}
