package lsp

import "testing"

// A server may escape a document's URI otherwise than fileURI does
// (vscode-uri, which node servers use, writes @ as %40): its publish is
// still the document's.
func TestPublishFindsADocumentEscapedOtherwise(t *testing.T) {
	c := &client{docs: map[string]*docState{}, changed: make(chan struct{})}
	path := "/work/pkg@v1/a b.py"
	c.docs[fileURI(path)] = &docState{version: 1}
	c.publish(publishParams{URI: "file:///work/pkg%40v1/a%20b.py", Diagnostics: []Diagnostic{{Message: "bad"}}})
	if diags, _, ok := c.current(path); !ok || len(diags) != 1 {
		t.Fatalf("the publish for %s was not kept: %v %v", path, diags, ok)
	}
}
