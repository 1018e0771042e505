package loop

import (
	"encoding/json"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// toolsPrint is the print of a request's tools array (requestPrint.tools),
// hashed the first time a judgement reads it: the first request of a run
// is judged against nothing, so a one-step `agent run` never encodes its
// tools for the print (the provider encodes them to send them). Prints of
// requests with the same array (the same slice: tools.Registry hands one
// while the tools stay the same) share one toolsPrint, so an array is
// hashed at most once. A nil *toolsPrint is the print of no tools.
type toolsPrint struct {
	defs []openai.Tool
	once sync.Once
	p    partPrint
}

// toolsPrintOf is the print of defs, reusing last's when defs is the slice
// it was made from.
func toolsPrintOf(defs []openai.Tool, last *toolsPrint) *toolsPrint {
	if len(defs) == 0 {
		return nil
	}
	if last != nil && len(last.defs) == len(defs) && &last.defs[0] == &defs[0] {
		return last
	}
	return &toolsPrint{defs: defs}
}

// printed is a tools print made from its hash and size (tests).
func printed(p partPrint) *toolsPrint {
	t := &toolsPrint{p: p}
	t.once.Do(func() {})
	return t
}

// print is the hash and size of the array's JSON.
func (t *toolsPrint) print() partPrint {
	if t == nil {
		return partPrint{}
	}
	t.once.Do(func() {
		b, _ := json.Marshal(t.defs)
		t.p = printOf(b)
	})
	return t.p
}
