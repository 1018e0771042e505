package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadMessageFramesAndRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		err            error
	}{
		{"one", "Content-Length: 2\r\n\r\n{}", "{}", nil},
		{"type header and bare newlines", "Content-Type: x\nContent-Length: 2\n\n[]", "[]", nil},
		{"no length", "Content-Type: x\r\n\r\n{}", "", errFraming},
		{"bad length", "Content-Length: -1\r\n\r\n", "", errFraming},
		{"too large", "Content-Length: 999999999\r\n\r\n", "", errFraming},
		{"no colon", "garbage\r\n\r\n", "", errFraming},
		{"long header", strings.Repeat("x", 5000) + "\r\n", "", errFraming},
		{"many headers", strings.Repeat("X: y\r\n", 100), "", errFraming},
		{"cut body", "Content-Length: 10\r\n\r\n{}", "", io.ErrUnexpectedEOF},
		{"empty", "", "", io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readMessage(bufio.NewReader(strings.NewReader(tc.in)), 1<<20)
			if !errors.Is(err, tc.err) || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// FuzzReadMessage: whatever arrives, the reader returns an error or a
// body no larger than its limit, and what writeMessage frames reads back.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"), []byte(`{"a":1}`))
	f.Add([]byte("Content-Length: 99\r\n\r\nx"), []byte(""))
	f.Fuzz(func(t *testing.T, raw, body []byte) {
		r := bufio.NewReader(bytes.NewReader(raw))
		for i := 0; i < 10; i++ {
			b, err := readMessage(r, 1<<16)
			if err != nil {
				break
			}
			if len(b) > 1<<16 {
				t.Fatalf("body of %d bytes over the limit", len(b))
			}
		}
		var buf bytes.Buffer
		if err := writeMessage(&buf, body); err != nil {
			t.Fatal(err)
		}
		got, err := readMessage(bufio.NewReader(&buf), 1<<20)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("round trip of %q: %q, %v", body, got, err)
		}
	})
}

func TestIntroducedComparesShiftedLines(t *testing.T) {
	d := func(line int, msg string) Diagnostic {
		var x Diagnostic
		x.Range.Start.Line, x.Severity, x.Message = line, SeverityError, msg
		return x
	}
	warn := d(0, "unused")
	warn.Severity = SeverityWarning
	for _, tc := range []struct {
		name          string
		before, after []Diagnostic
		oldT, newT    string
		warnings      bool
		want          []string
	}{
		{"new error", nil, []Diagnostic{d(1, "a")}, "x\ny", "x\nz", false, []string{"a"}},
		{"moved down", []Diagnostic{d(1, "a")}, []Diagnostic{d(3, "a")}, "x\ny", "n\nn\nx\ny", false, nil},
		{"one more of the same", []Diagnostic{d(1, "a")}, []Diagnostic{d(1, "a"), d(2, "a")}, "x\ny\n", "x\ny\nz\n", false, []string{"a"}},
		{"warning off", nil, []Diagnostic{warn}, "", "x", false, nil},
		{"warning on", nil, []Diagnostic{warn}, "", "x", true, []string{"unused"}},
		{"fixed", []Diagnostic{d(0, "a")}, nil, "x", "y", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, x := range Introduced(tc.before, tc.after, tc.oldT, tc.newT, tc.warnings) {
				got = append(got, x.Message)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
