package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean", "hello\n\tworld", "hello\n\tworld"},
		{"SGR colours", "\x1b[1;31merror\x1b[0m: x", "error: x"},
		{"cursor moves and erase", "\x1b[2K\x1b[1Gdone\x1b[?25h", "done"},
		{"OSC title with BEL", "\x1b]0;my title\x07text", "text"},
		{"OSC hyperlink with ST", "\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"two-byte escapes", "\x1b7\x1b(Bsaved\x1b8", "saved"},
		{"CRLF", "a\r\nb\r\n", "a\nb\n"},
		{"progress bar", "10%\r50%\r100%\ndone", "100%\ndone"},
		{"progress then erase", "50%\r\x1b[K\n", "50%\n"},
		{"trailing CR keeps line", "almost\r", "almost"},
		{"backspace", "ab\bc", "ac"},
		{"overstrike", "_\bX", "X"},
		{"control chars", "a\x00b\x07c\x7fd\x1ce", "abcde"},
		{"invalid UTF-8", "ok \xff\xfe\xfd end", "ok \uFFFD end"},
		{"truncated rune", "caf\xc3", "caf\uFFFD"},
		{"C1 controls", "a\u009b31mb\u0085c", "a31mbc"},
		{"unterminated CSI", "x\x1b[31", "x"},
		{"lone ESC at end", "x\x1b", "x"},
		{"multibyte kept", "héllo — 世界 🎉", "héllo — 世界 🎉"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.in)
			if got != tt.want {
				t.Fatalf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Sanitize(got); again != got {
				t.Fatalf("not idempotent: %q → %q", got, again)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("invalid UTF-8: %q", got)
			}
		})
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "a\rb\r\n", "\xff", "\x1b]0;t\x07", "_\bX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
		for _, r := range got {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("control %U left in %q (from %q)", r, got, s)
			}
		}
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("newline count changed: %q → %q", s, got)
		}
		if Sanitize(got) != got {
			t.Fatalf("not idempotent for %q", s)
		}
	})
}
