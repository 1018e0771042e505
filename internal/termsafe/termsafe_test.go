package termsafe

import "testing"

func TestStrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"title\x1b]0;pwned\x07", "title]0;pwned"},
		{"osc52 \x1b]52;c;aGVsbG8=\x1b\\", "osc52 ]52;c;aGVsbG8=\\"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"crlf\r\nline", "crlf\nline"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"héllo wörld ✓", "héllo wörld ✓"},
		{"del\x7f", "del"},
	}
	for _, tt := range tests {
		if got := Strip(tt.in); got != tt.want {
			t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{"a\x1b[0m", "\u009b", "\xff\xfe", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Strip(s)
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("control %U left in %q", r, out)
			}
		}
	})
}
