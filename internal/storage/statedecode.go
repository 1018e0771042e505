package storage

// statedecode.go: decoding a part's stored state, the most of the time a
// session's open takes (issue 36). States are written by encoding/json
// (encodeState); they are read with github.com/segmentio/encoding/json,
// already in the binary through the MCP SDK, which decodes the same
// structs with half the allocations and less time. Contract: the result
// is what encoding/json gives for the same bytes (FuzzStateDecodesAsEncodingJSON);
// when the fast decoder refuses a state, encoding/json decodes it, so a
// state is refused only when encoding/json refuses it too, with its error.
// A text part's state without escapes — most of a window's parts: a
// message's text, an answer's — is taken without a decoder at all
// (plainText, issue 36 resume7).

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	fastjson "github.com/segmentio/encoding/json"
)

// unmarshalState decodes a part's stored state into st, a zero value.
func unmarshalState(state []byte, st *partState) error {
	if text, ok := plainText(state); ok {
		st.Text = text
		return nil
	}
	if err := fastjson.Unmarshal(state, st); err == nil {
		return nil
	}
	*st = partState{}
	return json.Unmarshal(state, st)
}

// plainText returns the text of a state that is {"text":"…"} with
// nothing in the string that a decoder would change or refuse — no
// escape, quote or control character, valid UTF-8 — as encodeState
// writes a text without them; ok is false for any other state, which
// the decoders read.
func plainText(state []byte) (text string, ok bool) {
	const open, end = `{"text":"`, `"}`
	if len(state) < len(open)+len(end) || !bytes.HasPrefix(state, []byte(open)) || !bytes.HasSuffix(state, []byte(end)) {
		return "", false
	}
	body := state[len(open) : len(state)-len(end)]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}
