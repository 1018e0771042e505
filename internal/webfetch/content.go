package webfetch

// What a body becomes for the model: HTML converted to Markdown, text
// and JSON (and XML, YAML, scripts) passed through, anything else
// described by its type and size. Bytes become UTF-8 first: UTF-8 and
// ASCII as they are, Latin-1 and windows-1252 and UTF-16 decoded, any
// other charset read as UTF-8; invalid bytes become U+FFFD.

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// kind is how a body is shown.
type kind int

const (
	kindHTML kind = iota
	kindText
	kindOther
)

// classify reads the media type of a response (sniffed from the body
// when the server gave none) and its charset parameter.
func classify(contentType string, body []byte) (media string, k kind, charset string) {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		media = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	charset = strings.ToLower(params["charset"])
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return media, kindHTML, charset
	case strings.HasPrefix(media, "text/"),
		media == "application/json", strings.HasSuffix(media, "+json"),
		media == "application/xml", strings.HasSuffix(media, "+xml"),
		media == "application/javascript", media == "application/x-javascript",
		media == "application/yaml", media == "application/x-yaml", media == "application/toml",
		media == "application/x-ndjson", media == "application/sql":
		return media, kindText, charset
	}
	return media, kindOther, charset
}

// metaCharset finds <meta charset=…> or its http-equiv form near the
// start of an HTML document.
var metaCharset = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)`)
})

// toUTF8 decodes body by charset into valid UTF-8; note is set when the
// charset is not one it knows.
func toUTF8(body []byte, charset string, html bool) (text, note string) {
	if charset == "" && html {
		head := body[:min(len(body), 2048)]
		if m := metaCharset().FindSubmatch(head); m != nil {
			charset = strings.ToLower(string(m[1]))
		}
	}
	switch {
	case bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}):
		return strings.ToValidUTF8(string(body[3:]), "\uFFFD"), ""
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}), charset == "utf-16le":
		return decodeUTF16(bytes.TrimPrefix(body, []byte{0xFF, 0xFE}), false), ""
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}), charset == "utf-16be", charset == "utf-16":
		return decodeUTF16(bytes.TrimPrefix(body, []byte{0xFE, 0xFF}), true), ""
	}
	switch charset {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
	case "iso-8859-1", "latin1", "l1", "iso8859-1", "windows-1252", "cp1252":
		if !utf8.Valid(body) {
			return decodeWindows1252(body), ""
		}
	default:
		note = fmt.Sprintf("[the page's charset %q is not supported; shown as UTF-8, other bytes replaced]\n", charset)
	}
	if utf8.Valid(body) {
		return string(body), note
	}
	return strings.ToValidUTF8(string(body), "\uFFFD"), note
}

// decodeWindows1252 decodes the Latin-1 labels as browsers do (WHATWG):
// as windows-1252, Latin-1 but for 0x80-0x9F, which are printable (“ ” €
// …) instead of the C1 controls that Sanitize would remove.
func decodeWindows1252(b []byte) string {
	var s strings.Builder
	s.Grow(len(b) + len(b)/8)
	for _, c := range b {
		r := rune(c)
		if c >= 0x80 && c < 0xA0 {
			r = cp1252[c-0x80]
		}
		s.WriteRune(r)
	}
	return s.String()
}

// cp1252 are windows-1252's 0x80-0x9F (the five it leaves undefined kept
// as Latin-1's).
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

func decodeUTF16(b []byte, bigEndian bool) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return string(utf16.Decode(u))
}

// toMarkdown converts an HTML page to Markdown, links made absolute
// against pageURL. Invalid HTML is parsed as browsers do (the HTML5
// algorithm never fails); the result is bounded by the input.
// A page of more than two pieces is converted piece by piece
// (pieces.go), so its whole tree is never held at once.
func toMarkdown(ctx context.Context, page, pageURL string) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin(),
	))
	return convertPieces(page, pieces(page, pieceBytes), func(piece string) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		doc, err := html.Parse(strings.NewReader(piece))
		if err != nil {
			return nil, err
		}
		return conv.ConvertNode(doc, converter.WithContext(ctx), converter.WithDomain(pageURL))
	})
}

// describe is what the model reads of a body not shown: its type and size.
func describe(media string, n int, cut bool) string {
	size := fmt.Sprintf("%d bytes", n)
	if cut {
		size = fmt.Sprintf("more than %d bytes", n)
	}
	return fmt.Sprintf("[%s content, %s: not shown (only HTML, text and JSON are)]", media, size)
}

// htmlText is the text of an HTML page the converter gave up on (the
// parser refuses a page nested past its limit): the tokenizer's text,
// without scripts and styles, in lines.
func htmlText(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String())
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "script" || string(name) == "style" {
				skip++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); (string(name) == "script" || string(name) == "style") && skip > 0 {
				skip--
			}
		case html.TextToken:
			if skip == 0 {
				if t := strings.Join(strings.Fields(string(z.Text())), " "); t != "" {
					b.WriteString(t)
					b.WriteByte('\n')
				}
			}
		}
	}
}
