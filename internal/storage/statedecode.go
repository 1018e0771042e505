package storage

// statedecode.go: decoding a part's stored state, the most of the time a
// session's open takes (issue 36). States are written by encoding/json
// (encodeState); they are read with github.com/segmentio/encoding/json,
// already in the binary through the MCP SDK, which decodes the same
// structs with half the allocations and less time. Contract: the result
// is what encoding/json gives for the same bytes (FuzzStateDecodesAsEncodingJSON);
// when the fast decoder refuses a state, encoding/json decodes it, so a
// state is refused only when encoding/json refuses it too, with its error.

import (
	"encoding/json"

	fastjson "github.com/segmentio/encoding/json"
)

// unmarshalState decodes a part's stored state into st.
func unmarshalState(state []byte, st *partState) error {
	if err := fastjson.Unmarshal(state, st); err == nil {
		return nil
	}
	*st = partState{}
	return json.Unmarshal(state, st)
}
